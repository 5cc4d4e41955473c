/// `apns-id`s: the request's own, or a fresh random UUID in upper case, as APNs generates them.
///
/// Foundation's `UUID()` on Linux opens /dev/urandom and formats with sprintf for every call,
/// which cost more than the rest of a request; ids need uniqueness, not secrecy, so each
/// connection draws from its own fast generator seeded once from the system.
public struct APNsIDGenerator: Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init() {
        var system = SystemRandomNumberGenerator()
        state = (system.next(), system.next(), system.next(), system.next() | 1)
    }

    /// A reproducible sequence (scenarios and tests that want the same tokens every run).
    public init(seed: UInt64) {
        var mix = seed
        func splitmix() -> UInt64 {
            mix &+= 0x9E37_79B9_7F4A_7C15
            var z = mix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitmix(), splitmix(), splitmix(), splitmix() | 1)
    }

    /// `count` random bytes as lower-case hex: a device token.
    public mutating func hex(bytes count: Int) -> String {
        var text = ""
        text.reserveCapacity(count * 2)
        var word: UInt64 = 0
        for index in 0..<count {
            if index % 8 == 0 { word = nextWord() }
            let byte = UInt8(truncatingIfNeeded: word >> UInt64(8 * (index % 8)))
            text += byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }
        return text
    }

    /// `count` random bytes (a broadcast channel id).
    public mutating func randomBytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var word: UInt64 = 0
        for index in 0..<count {
            if index % 8 == 0 { word = nextWord() }
            bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(8 * (index % 8))))
        }
        return bytes
    }

    /// The request's `apns-id` when it sent one, otherwise a new one.
    public mutating func echoOrGenerate(_ requested: String?) -> String {
        if let requested, !requested.isEmpty { return requested }
        return next()
    }

    /// A random (version 4) UUID, upper case.
    public mutating func next(lowercase: Bool = false) -> String {
        nextUUID(lowercase: lowercase).text
    }

    public mutating func nextUUID(lowercase: Bool = false) -> CanonicalUUID {
        // Version 4 in the high word's nibble 12, the RFC 4122 variant in the low word's top bits.
        let high = nextWord() & 0xFFFF_FFFF_FFFF_0FFF | 0x0000_0000_0000_4000
        let low = nextWord() & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return CanonicalUUID(high: high, low: low, isLowercase: lowercase)
    }

    /// xoshiro256** (Blackman and Vigna).
    private mutating func nextWord() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ value: UInt64, _ amount: UInt64) -> UInt64 {
        (value << amount) | (value >> (64 - amount))
    }
}
