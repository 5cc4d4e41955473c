@testable import PushlabCore
import Testing

/// The in-place readers decide exactly what the string forms they replace decide.
@Suite("Header values read in place")
struct HeaderValueParsingTests {
    static let integers = [
        "10", "5", " 1\t", "+5", "-1", "-0", "0", "007", "", " ", "+", "-", "1 0", "1e3", "0x10", "٥",
        "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "99999999999999999999", "\t1767229200 ",
    ]

    /// Only spaces and tabs around a value go (what both the byte and the string readers use).
    @Test func trimmingTakesSpacesAndTabsAroundOnly() {
        #expect(" \t5 \t".trimmingSpaces == "5")
        #expect(" a b ".trimmingSpaces == "a b")
        #expect("\u{00A0}x\n".trimmingSpaces == "\u{00A0}x\n")
        #expect(" \t ".trimmingSpaces == "")
        #expect("com.example.app".trimmingSpaces == "com.example.app")
    }

    @Test(arguments: integers)
    func integersAsInt64ReadsThem(text: String) {
        let expected = Int64(text.trimmingSpaces)
        let parsed = Array(text.utf8).withUnsafeBytes { HeaderValueParsing.integer($0) }
        #expect(parsed == expected)
    }

    @Test(arguments: ["alert", "background", "voip", "liveactivity", "widgets", " alert", "ALERT", "Voip ", "", "alerts", "alert\u{0}", "pushtotalk"])
    func pushTypesAsTheLenientStringPathReadsThem(text: String) {
        let expected = APNsPushType(rawValue: text) ?? APNsPushType(rawValue: text.trimmingSpaces.lowercased())
        let parsed = Array(text.utf8).withUnsafeBytes { HeaderValueParsing.pushType($0) }
        #expect(parsed == expected)
    }

    @Test func everyPushTypeIsRecognisedByItsBytes() {
        for type in APNsPushType.allCases {
            #expect(Array(type.rawValue.utf8).withUnsafeBytes { HeaderValueParsing.pushType($0) } == type)
        }
    }
}
