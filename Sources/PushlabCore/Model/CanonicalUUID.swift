/// A UUID in its canonical 8-4-4-4-12 hex form, held as 128 bits and the case of its letters:
/// an `apns-id` without its 36 bytes of text. Text in mixed case has no such form.
public struct CanonicalUUID: Hashable, Sendable {
    public let high: UInt64
    public let low: UInt64
    public let isLowercase: Bool

    /// A UUID of digits only is upper case whatever `isLowercase` says: its text is the same in
    /// both, and two ids with the same text must be equal.
    public init(high: UInt64, low: UInt64, isLowercase: Bool) {
        self.high = high
        self.low = low
        self.isLowercase = isLowercase && (Self.hasLetterDigit(high) || Self.hasLetterDigit(low))
    }

    /// Whether any of the word's sixteen hex digits is 10 or more (a, b, …, f).
    private static func hasLetterDigit(_ word: UInt64) -> Bool {
        // A nibble is 10 or more when its top bit is set with either of the two below it.
        let top = (word >> 3) & 0x1111_1111_1111_1111
        let either = ((word >> 2) | (word >> 1)) & 0x1111_1111_1111_1111
        return top & either != 0
    }

    /// Nil unless `text` is 32 hex digits in the canonical groups, letters all of one case (a
    /// UUID of digits only reads as upper case: its text is the same).
    public init?(_ text: String) {
        guard let scan = Self.scan(text), !(scan.hasUpper && scan.hasLower) else { return nil }
        self.init(high: scan.high, low: scan.low, isLowercase: scan.hasLower)
    }

    /// The bits of 8-4-4-4-12 hex digits and which letter cases they use; nil for other text.
    /// Read from the text's storage, a digit at a time without a branch per character class:
    /// the store parses every observation's notification id, one new id a push.
    static func scan(_ text: String) -> (high: UInt64, low: UInt64, hasUpper: Bool, hasLower: Bool)? {
        if let scanned = text.utf8.withContiguousStorageIfAvailable({ scan(bytes: $0) }) { return scanned }
        return Array(text.utf8).withUnsafeBufferPointer { scan(bytes: $0) }
    }

    private static func scan(bytes: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt64, hasUpper: Bool, hasLower: Bool)? {
        guard bytes.count == textLength,
              bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"), bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
        else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        var invalid = false
        var sawUpper = false, sawLower = false
        var digits = 0
        for index in 0..<textLength where index != 8 && index != 13 && index != 18 && index != 23 {
            let byte = bytes[index]
            let decimal = byte &- UInt8(ascii: "0")
            let letter = (byte | 0x20) &- UInt8(ascii: "a")
            let isDecimal = decimal < 10
            let isLetter = letter < 6
            invalid = invalid || !(isDecimal || isLetter)
            // ASCII letters differ from their other case by bit 0x20 alone, set in lower case.
            sawUpper = sawUpper || (isLetter && byte & 0x20 == 0)
            sawLower = sawLower || (isLetter && byte & 0x20 != 0)
            let nibble = UInt64(isDecimal ? decimal : letter &+ 10)
            if digits < 16 { high = high << 4 | nibble } else { low = low << 4 | nibble }
            digits += 1
        }
        guard !invalid else { return nil }
        return (high, low, sawUpper, sawLower)
    }

    public static let textLength = 36

    public var text: String {
        String(unsafeUninitializedCapacity: Self.textLength) { output in
            write(into: output)
            return Self.textLength
        }
    }

    /// Writes the 36 bytes of `text` to the start of `output`, every answer carrying one or two
    /// of these. The digits are constant bytes in the binary: a table built at run time would be
    /// an array whose reference count both event loops bounce between them on every answer.
    func write(into output: UnsafeMutableBufferPointer<UInt8>) {
        precondition(output.count >= Self.textLength)
        let digits = (isLowercase ? Self.lowerCaseDigits : Self.upperCaseDigits).utf8Start
        var position = 0
        for byteIndex in 0..<16 {
            if byteIndex == 4 || byteIndex == 6 || byteIndex == 8 || byteIndex == 10 {
                output[position] = UInt8(ascii: "-")
                position += 1
            }
            let word = byteIndex < 8 ? high : low
            let byte = Int(truncatingIfNeeded: word >> UInt64(56 - 8 * (byteIndex % 8))) & 0xFF
            output[position] = digits[byte >> 4]
            output[position + 1] = digits[byte & 0xF]
            position += 2
        }
    }

    private static let lowerCaseDigits: StaticString = "0123456789abcdef"
    private static let upperCaseDigits: StaticString = "0123456789ABCDEF"
}
