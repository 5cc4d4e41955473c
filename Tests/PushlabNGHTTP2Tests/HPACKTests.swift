import Testing
import PushlabNGHTTP2

@Suite("HPACK")
struct HPACKTests {
    private let request = HTTP2HeaderList([
        (":method", "POST"), (":scheme", "https"), (":path", "/3/device/" + String(repeating: "ab", count: 32)),
        (":authority", "api.sandbox.push.apple.com"), ("apns-topic", "com.pushlab.demo"),
        ("apns-push-type", "alert"), ("apns-priority", "10"),
    ])

    @Test func roundTripKeepsEveryFieldInOrder() throws {
        let encoder = try HPACKEncoder(), decoder = try HPACKDecoder()
        let block = try encoder.encode(request)
        let decoded = try decoder.decode(block)
        #expect(decoded.fields.map(\.name) == request.fields.map(\.name))
        #expect(decoded.fields.map(\.value) == request.fields.map(\.value))
    }

    @Test func repeatedBlocksShrinkThroughTheDynamicTable() throws {
        let encoder = try HPACKEncoder(), decoder = try HPACKDecoder()
        let first = try encoder.encode(request)
        let second = try encoder.encode(request)
        #expect(second.count < first.count / 2)
        _ = try decoder.decode(first)
        #expect(try decoder.decode(second).fields.map(\.value) == request.fields.map(\.value))
        #expect(encoder.dynamicTableSize > 0 && encoder.dynamicTableSize <= 4096)
        #expect(decoder.dynamicTableSize == encoder.dynamicTableSize)
    }

    @Test func neverIndexedValuesStayOutOfTheTable() throws {
        let encoder = try HPACKEncoder()
        var secret = HTTP2HeaderList()
        secret.append(name: "authorization", value: "bearer " + String(repeating: "x", count: 200), neverIndex: true)
        _ = try encoder.encode(secret)
        #expect(encoder.dynamicTableSize == 0)
        let decoded = try HPACKDecoder().decode(try HPACKEncoder().encode(secret))
        #expect(decoded.value(of: "authorization")?.count == 207)
    }

    @Test func truncatedBlockIsAnError() throws {
        let block = try HPACKEncoder().encode(request)
        #expect(throws: NGHTTP2Error.self) { try HPACKDecoder().decode(Array(block.dropLast(5)) + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) }
    }
}
