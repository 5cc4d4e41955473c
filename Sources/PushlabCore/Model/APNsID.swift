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

    /// The request's `apns-id` when it sent one, otherwise a new one.
    public mutating func echoOrGenerate(_ requested: String?) -> String {
        if let requested, !requested.isEmpty { return requested }
        return next()
    }

    /// A random (version 4) UUID, upper case.
    public mutating func next(lowercase: Bool = false) -> String {
        let high = nextWord(), low = nextWord()
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
            bytes[index + 8] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
        let digits: StaticString = lowercase ? "0123456789abcdef" : "0123456789ABCDEF"
        return String(unsafeUninitializedCapacity: 36) { output in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    output[position] = UInt8(ascii: "-")
                    position += 1
                }
                output[position] = digits.utf8Start[Int(byte >> 4)]
                output[position + 1] = digits.utf8Start[Int(byte & 0x0F)]
                position += 2
            }
            return 36
        }
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
