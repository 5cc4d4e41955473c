import PushlabCore
@testable import PushlabStore
import Testing

/// Broadcast and channel management requests in the store: their channel id survives a chunk,
/// and a chunk without one stays in the format older Pushlabs read.
@Suite("Request chunks with broadcast channels")
struct RequestChunkChannelTests {
    static func entry(_ sequence: Int64, channelID: String?, pushType: String? = "liveactivity", status: Int = 200) -> RequestLog.Entry {
        RequestLog.Entry(
            sequence: sequence, time: 1_790_000_000_000, connectionID: 3, environment: .development, deviceTokenKey: nil,
            topic: "com.example.app", pushType: pushType, status: status, reason: status == 200 ? nil : .channelNotRegistered,
            apnsID: APNsID("3f1c0a5e-7b2d-4c9e-8a6f-0d1e2f3a4b5c"), channelID: channelID
        )
    }

    @Test func channelIDsComeBackWithEveryOtherField() throws {
        let entries = [
            Self.entry(1, channelID: "dHN0LXNyY2gtY2hubA=="),
            Self.entry(2, channelID: nil, pushType: nil),
            Self.entry(3, channelID: "7sTJDDsQrEvxrUcria7csg==", status: 400),
            RequestChunkTests.entry(4),
        ]
        let bytes = RequestChunk.encode(entries[...])
        #expect(bytes.first == RequestChunk.formatVersion)
        let decoded = try bytes.withUnsafeBytes { try RequestChunk.decode($0) }
        #expect(decoded == entries)
        #expect(decoded.map(\.channelID) == ["dHN0LXNyY2gtY2hubA==", nil, "7sTJDDsQrEvxrUcria7csg==", nil])
    }

    @Test func aChunkWithoutChannelsKeepsTheFirstFormat() throws {
        let bytes = RequestChunk.encode(RequestChunkTests.variety[...])
        #expect(bytes.first == RequestChunk.formatWithoutChannels)
        #expect(try bytes.withUnsafeBytes { try RequestChunk.decode($0) } == RequestChunkTests.variety)
    }
}
