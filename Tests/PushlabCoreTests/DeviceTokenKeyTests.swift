@testable import PushlabCore
import Testing

@Suite("Device tokens as packed keys")
struct DeviceTokenKeyTests {
    static let token = "0123456789abcdef" + "fedcba9876543210" + "00ff00ff00ff00ff" + "a1b2c3d4e5f60718"

    @Test func sixtyFourHexDigitsPackAndPrintBackInLowerCase() {
        let key = DeviceTokenKey(Self.token)
        #expect(key.unpackedText == nil)
        #expect(key.hex == Self.token)
        #expect(DeviceTokenKey(Self.token.uppercased()) == key)
        #expect(DeviceTokenKey(Self.token.uppercased()).hex == Self.token)
        var digits: [UInt8] = []
        key.forEachHexDigit { digits.append($0) }
        #expect(digits == Array(Self.token.utf8))
    }

    @Test func theBytesOfAPathGiveTheSameKeyAsTheText() {
        var path = "/3/device/" + Self.token
        let fromBytes = path.withUTF8 { DeviceTokenKey(utf8: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0[10...]))) }
        #expect(fromBytes == DeviceTokenKey(Self.token))
        #expect(Set([fromBytes, DeviceTokenKey(Self.token)]).count == 1)
    }

    /// The variable-length format and malformed tokens are kept as text, lower-cased.
    @Test(arguments: [String(repeating: "ab", count: 40), "not-hex", "", String(repeating: "g", count: 64), String(repeating: "a", count: 63)])
    func anythingElseIsKeptAsText(_ token: String) {
        let key = DeviceTokenKey(token)
        #expect(key.unpackedText != nil)
        #expect(key.hex == token.lowercased())
        #expect(DeviceTokenKey(token.uppercased()) == key)
        #expect(key != DeviceTokenKey(Self.token))
    }

    /// A token given by hand: an even number of ASCII hex digits, at least 64 (not the fullwidth
    /// digits `Character.isHexDigit` also takes).
    @Test func aWellFormedTokenIsAnEvenNumberOfASCIIHexDigits() {
        #expect(DeviceTokenRecord.isWellFormed(Self.token))
        #expect(DeviceTokenRecord.isWellFormed(String(repeating: "AB", count: 40)))
        #expect(!DeviceTokenRecord.isWellFormed(String(repeating: "a", count: 63)))
        #expect(!DeviceTokenRecord.isWellFormed(String(repeating: "g", count: 64)))
        #expect(!DeviceTokenRecord.isWellFormed(String(repeating: "\u{FF11}", count: 64)))
    }

    /// Every byte value in the last position: exactly the 22 hex digits pack, in either case.
    @Test func onlyHexDigitsPackWhateverTheByte() {
        let hexDigits = Array("0123456789abcdefABCDEF".utf8)
        for byte in UInt8.min...UInt8.max {
            let bytes = Array(String(repeating: "a", count: 63).utf8) + [byte]
            let key = bytes.withUnsafeBytes { DeviceTokenKey(utf8: $0) }
            if let index = hexDigits.firstIndex(of: byte) {
                let lower = hexDigits[index < 16 ? index : index - 6]
                #expect(key.unpackedText == nil && key.hex.utf8.last == lower, "byte \(byte)")
            } else {
                #expect(key.unpackedText != nil, "byte \(byte)")
            }
        }
    }

    @Test func tokensThatDifferInOneDigitDiffer() {
        var changed = Array(Self.token.utf8)
        changed[63] = UInt8(ascii: "9")
        let other = DeviceTokenKey(String(decoding: changed, as: UTF8.self))
        #expect(other != DeviceTokenKey(Self.token))
        #expect(APNsWorld(tokens: [DeviceTokenRecord(token: Self.token, bundleID: "com.example", environment: .development)]).token(other.hex) == nil)
    }
}
