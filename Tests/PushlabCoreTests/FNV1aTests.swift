import PushlabCore
import Testing

/// The hash is written to disk and names shards and fingerprints: it must stay 64-bit FNV-1a
/// over a text's UTF-8 bytes, whichever way the bytes are fed in.
struct FNV1aTests {
    @Test func theHashMatchesThePublishedVectors() {
        #expect(FNV1a().state == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a("a").state == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a("foobar").state == 0x8594_4171_f739_67e8)
    }

    @Test func aTextHashesAsItsUTF8BytesOneByOne() {
        for text in ["", "phone-1", String(repeating: "0123456789abcdef", count: 4), "téléphone ☎︎", "\u{1F4F1} phone"] {
            var byByte = FNV1a()
            for byte in Array(text.utf8) { byByte.add(byte) }
            #expect(FNV1a(text) == byByte, "\(text)")
        }
    }

    @Test func addingTextsInTurnContinuesOneHash() {
        var parts = FNV1a()
        parts.add("device")
        parts.add(0)
        parts.add("com.example")
        var whole = FNV1a()
        for byte in Array("device\u{0}com.example".utf8) { whole.add(byte) }
        #expect(parts.value == whole.value)
        #expect(parts.value == Int64(bitPattern: parts.state))
    }
}
