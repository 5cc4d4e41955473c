/// Just enough DER writing for Apple's APNs extensions: NULL, UTF8String and SEQUENCE.
/// (Reading them back is `PushlabCore`'s `DERReader`.)
enum DERWriter {
    static let null: [UInt8] = [0x05, 0x00]

    static func utf8String(_ text: String) -> [UInt8] {
        element(tag: 0x0C, content: Array(text.utf8))
    }

    static func sequence(_ elements: [[UInt8]]) -> [UInt8] {
        element(tag: 0x30, content: elements.flatMap { $0 })
    }

    private static func element(tag: UInt8, content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    /// Short form below 128, else long form: 0x80 | byte count, then the big-endian bytes.
    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
