/// A UUID in its canonical 8-4-4-4-12 hex form, held as 128 bits and the case of its letters:
/// an `apns-id` without its 36 bytes of text. Text in mixed case has no such form.
public struct CanonicalUUID: Hashable, Sendable {
    public let high: UInt64
    public let low: UInt64
    public let isLowercase: Bool

    public init(high: UInt64, low: UInt64, isLowercase: Bool) {
        self.high = high
        self.low = low
        self.isLowercase = isLowercase
    }

    /// Nil unless `text` is 32 hex digits in the canonical groups, letters all of one case (a
    /// UUID of digits only reads as upper case: its text is the same).
    public init?(_ text: String) {
        guard let scan = Self.scan(text), !(scan.hasUpper && scan.hasLower) else { return nil }
        self.init(high: scan.high, low: scan.low, isLowercase: scan.hasLower)
    }

    /// The bits of 8-4-4-4-12 hex digits and which letter cases they use; nil for other text.
    static func scan(_ text: String) -> (high: UInt64, low: UInt64, hasUpper: Bool, hasLower: Bool)? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == textLength else { return nil }
            var high: UInt64 = 0, low: UInt64 = 0
            var digits = 0
            var hasUpper = false, hasLower = false
            for (index, byte) in bytes.enumerated() {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                let nibble: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10; hasLower = true
                case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10; hasUpper = true
                default: return nil
                }
                if digits < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
                digits += 1
            }
            return (high, low, hasUpper, hasLower)
        }
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
