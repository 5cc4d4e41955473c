/// Text as one part of a URL (a path segment, a query value): RFC 3986's unreserved characters
/// stay, every other byte of its UTF-8 is `%XX`.
public enum PercentEncoding {
    public static func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                output += "%" + String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return output
    }
}
