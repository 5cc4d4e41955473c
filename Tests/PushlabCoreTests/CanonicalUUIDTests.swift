@testable import PushlabCore
import Testing

/// `scan` reads 8-4-4-4-12 hex digits without a branch per character class; checked here
/// against a plain reading of the same rule, character by character.
struct CanonicalUUIDTests {
    static let sample = "8E1B6B5E-0C6B-4A53-9C8E-4B6B1E2D3F40"

    /// The rule read plainly: dashes at 8, 13, 18 and 23, hex digits elsewhere.
    static func reference(_ text: String) -> (high: UInt64, low: UInt64, hasUpper: Bool, hasLower: Bool)? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0, digits = 0, hasUpper = false, hasLower = false
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
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

    static func same(_ text: String) -> Bool {
        let scanned = CanonicalUUID.scan(text), expected = reference(text)
        guard let scanned, let expected else { return scanned == nil && expected == nil }
        return scanned.high == expected.high && scanned.low == expected.low
            && scanned.hasUpper == expected.hasUpper && scanned.hasLower == expected.hasLower
    }

    @Test func theBitsAndCasesOfAUUIDAreRead() throws {
        let scanned = try #require(CanonicalUUID.scan(Self.sample))
        #expect(scanned.high == 0x8E1B_6B5E_0C6B_4A53 && scanned.low == 0x9C8E_4B6B_1E2D_3F40)
        #expect(scanned.hasUpper && !scanned.hasLower)
        #expect(CanonicalUUID(Self.sample.lowercased())?.isLowercase == true)
        #expect(CanonicalUUID("00000000-0000-0000-0000-000000000000")?.isLowercase == false)
        #expect(CanonicalUUID("8E1B6B5E-0C6B-4A53-9C8E-4b6b1e2d3f40") == nil, "mixed case has no canonical form")
    }

    /// Every byte value at every position of an upper- and a lower-case UUID.
    @Test func everyByteAtEveryPositionReadsAsThePlainRuleDoes() {
        var mismatches: [String] = []
        for base in [Self.sample, Self.sample.lowercased()] {
            let bytes = Array(base.utf8)
            for position in bytes.indices {
                for value in UInt8.min...UInt8.max {
                    var changed = bytes
                    changed[position] = value
                    let text = String(decoding: changed, as: UTF8.self)
                    if !Self.same(text) { mismatches.append("\(position): \(value)") }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    @Test func textOfOtherLengthsOrShapesIsNotAUUID() {
        for text in ["", "8E1B6B5E0C6B4A539C8E4B6B1E2D3F40", Self.sample + "0", String(Self.sample.dropLast()), "8E1B6B5E-0C6B-4A53-9C8E-4B6B1E2D3F4é"] {
            #expect(CanonicalUUID.scan(text) == nil, "\(text)")
            #expect(Self.same(text))
        }
    }

    /// Two ids are equal exactly when their texts are: a UUID of digits only made "lower case"
    /// (the generator's choice) is the same id as its text read back.
    @Test func idsWithTheSameTextAreEqual() {
        let digitsOnly = CanonicalUUID(high: 0x1234_5678_9012_3456, low: 0x8901_2345_6789_0123, isLowercase: true)
        #expect(!digitsOnly.isLowercase)
        #expect(CanonicalUUID(digitsOnly.text) == digitsOnly)
        #expect(APNsID(digitsOnly) == APNsID(digitsOnly.text))
        // One letter digit anywhere, in either word, keeps the case asked for.
        for shift in stride(from: 0, to: 64, by: 4) {
            let high = CanonicalUUID(high: 0xA << UInt64(shift), low: 0, isLowercase: true)
            let low = CanonicalUUID(high: 0, low: 0xF << UInt64(shift), isLowercase: true)
            #expect(high.isLowercase && low.isLowercase, "nibble at bit \(shift)")
            #expect(CanonicalUUID(high.text) == high && CanonicalUUID(low.text) == low)
            #expect(!CanonicalUUID(high: 0x9 << UInt64(shift), low: 0x8 << UInt64(shift), isLowercase: true).isLowercase)
        }
    }

    /// An id keeps the text it came as, whatever its form.
    @Test func anAPNsIDReadsBackAsItsText() {
        for text in [Self.sample, Self.sample.lowercased(), "8E1B6B5E-0C6B-4A53-9C8E-4b6b1e2d3f40", "reminder-7", ""] {
            let id = APNsID(text)
            #expect(id.text == text)
            #expect((id.canonical != nil) == (CanonicalUUID(text) != nil), "\(text)")
            #expect(id == APNsID(text))
        }
        #expect(APNsID(Self.sample) != APNsID(Self.sample.lowercased()))
    }
}
