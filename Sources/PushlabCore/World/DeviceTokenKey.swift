/// A device token as the hot path compares it. The 64 hex digits Apple issues are packed into four
/// words, so a lookup hashes 32 bytes and compares four integers instead of hashing and comparing
/// a heap string. Any other text (the variable-length format, a malformed token) is kept as it
/// is. Case-insensitive, as APNs reads tokens.
public struct DeviceTokenKey: Hashable, Sendable {
    /// Four words, not a `SIMD4`: its 32-byte alignment would pad every key to 64 bytes.
    private let words: Words
    /// Set only for a token that is not 64 hex digits: lower-cased.
    private let text: String?

    public init(_ token: String) {
        var token = token
        self = token.withUTF8 { DeviceTokenKey(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// From the bytes of a request's path, without making a string first.
    public init(utf8 bytes: UnsafeRawBufferPointer) {
        if let words = Self.pack(bytes) {
            self.words = words
            text = nil
        } else {
            words = Words()
            text = String(decoding: bytes, as: UTF8.self).lowercased()
        }
    }

    /// The four words of a 64-hex-digit token, first digit in the top nibble of the first word;
    /// nil for any other token. What a store keeps instead of the text.
    public var packedWords: (UInt64, UInt64, UInt64, UInt64)? {
        text == nil ? (words[0], words[1], words[2], words[3]) : nil
    }

    /// The token `packedWords` came from.
    public init(packedWords: (UInt64, UInt64, UInt64, UInt64)) {
        var words = Words()
        (words[0], words[1], words[2], words[3]) = packedWords
        self.words = words
        text = nil
    }

    /// Lower-case hex, as the world and the request log print tokens.
    public var hex: String {
        if let text { return text }
        return String(unsafeUninitializedCapacity: 64) { buffer in
            var index = 0
            forEachHexDigit { digit in
                buffer[index] = digit
                index += 1
            }
            return index
        }
    }

    /// The bytes of `hex`, one by one, without making the string.
    public func forEachHexDigit(_ body: (UInt8) -> Void) {
        if let text {
            for byte in text.utf8 { body(byte) }
            return
        }
        let digits: StaticString = "0123456789abcdef"
        for word in 0..<4 {
            let value = words[word]
            for nibble in 0..<16 { body(digits.utf8Start[Int((value >> UInt64(60 - nibble * 4)) & 0xF)]) }
        }
    }

    /// The token's text when it is not 64 hex digits.
    var unpackedText: String? { text }

    /// Which of `count` lock shards holds the token: the low bits of a random token are random.
    public func shard(among count: Int) -> Int {
        let bits = text.map { UInt64($0.utf8.last ?? 0) } ?? words[3]
        return Int(bits % UInt64(count))
    }

    public func hash(into hasher: inout Hasher) {
        if let text {
            hasher.combine(text)
        } else {
            hasher.combine(words[0] ^ words[2])
            hasher.combine(words[1] ^ words[3])
        }
    }

    private static func pack(_ bytes: UnsafeRawBufferPointer) -> Words? {
        guard bytes.count == 64 else { return nil }
        var words = Words()
        for word in 0..<4 {
            var value: UInt64 = 0
            for index in (word * 16)..<(word * 16 + 16) {
                guard let nibble = nibble(bytes[index]) else { return nil }
                value = value << 4 | UInt64(nibble)
            }
            words[word] = value
        }
        return words
    }

    struct Words: Hashable, Sendable {
        private var a: UInt64 = 0, b: UInt64 = 0, c: UInt64 = 0, d: UInt64 = 0

        subscript(index: Int) -> UInt64 {
            get { index == 0 ? a : index == 1 ? b : index == 2 ? c : d }
            set {
                switch index {
                case 0: a = newValue
                case 1: b = newValue
                case 2: c = newValue
                default: d = newValue
                }
            }
        }
    }

    /// Arithmetic, not a `switch` over ranges: the range patterns compiled to a call per digit,
    /// 64 per request.
    @inline(__always)
    private static func nibble(_ byte: UInt8) -> UInt8? {
        let digit = byte &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")  // either case
        return letter < 6 ? letter + 10 : nil
    }
}
