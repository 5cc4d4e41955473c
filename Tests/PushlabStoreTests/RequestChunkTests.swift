import Foundation
import GRDB
import PushlabCore
@testable import PushlabStore
import Testing

@Suite("Request chunks: a batch's requests as blobs, read back field for field")
struct RequestChunkTests {
    static let packedToken = String(repeating: "0f", count: 32)

    static func entry(
        _ sequence: Int64, token: String? = packedToken, topic: String? = "com.example.app", pushType: String? = "alert",
        status: Int = 200, reason: APNsErrorReason? = nil, apnsID: String = "8E1B6B5E-0C6B-4A53-9C8E-4B6B1E2D3F40",
        environment: APNsEnvironment = .development, connectionID: UInt64 = 7, time: Int64 = 1_790_000_000_000
    ) -> RequestLog.Entry {
        RequestLog.Entry(
            sequence: sequence, time: time, connectionID: connectionID, environment: environment, deviceToken: token,
            topic: topic, pushType: pushType, status: status, reason: reason, apnsID: apnsID
        )
    }

    static let variety: [RequestLog.Entry] = [
        entry(10),
        // Out of order and back in time: deltas go negative.
        entry(9, time: 1_789_999_999_000),
        entry(12, token: "short-token", topic: "com.example.app.voip", pushType: "voip", environment: .production),
        entry(11, token: nil, topic: nil, pushType: nil, status: 404, reason: .badPath, apnsID: "not a uuid at all"),
        entry(13, status: 410, reason: .unregistered, apnsID: "8e1b6b5e-0c6b-4a53-9c8e-4b6b1e2d3f40"),
        entry(14, apnsID: "8e1b6b5e-0C6B-4A53-9C8E-4B6B1E2D3F40"),
        entry(15, apnsID: "00000000-0000-0000-0000-000000000000", connectionID: UInt64.max, time: -5),
        entry(16, token: "", topic: "", pushType: "", status: 429, reason: .tooManyRequests, apnsID: ""),
        entry(Int64.max, token: String(repeating: "AB", count: 32), topic: "çà et là ✓"),
    ]

    @Test func entriesComeBackExactlyAsTheyWent() throws {
        let bytes = RequestChunk.encode(Self.variety[...])
        let decoded = try bytes.withUnsafeBytes { try RequestChunk.decode($0) }
        #expect(decoded == Self.variety)
        #expect(decoded[0].deviceToken == Self.packedToken)
        #expect(decoded.last?.deviceToken == String(repeating: "ab", count: 32), "tokens are kept lower case, as the log prints them")
    }

    @Test func repeatedTopicsAndCanonicalIDsCostFewBytes() {
        let many = (1...1000).map { Self.entry(Int64($0)) }
        let bytes = RequestChunk.encode(many[...])
        // Sequence, time, connection, flags, four string indexes, status: ~10 bytes; token 32; id 16.
        #expect(bytes.count < 1000 * 64, "\(bytes.count) bytes for 1000 requests")
    }

    enum Damage: CaseIterable, Sendable {
        case cutShort, unknownFormat, trailingBytes, hugeCount, nothing

        func apply(to bytes: [UInt8]) -> [UInt8] {
            switch self {
            case .cutShort: Array(bytes.dropLast(3))
            case .unknownFormat: [99] + bytes.dropFirst()
            case .trailingBytes: bytes + [0]
            case .hugeCount: [RequestChunk.formatVersion, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F] + bytes.dropFirst(2)
            case .nothing: []
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedChunkIsReportedNotReadPastItsEnd(_ damage: Damage) {
        let damaged = damage.apply(to: RequestChunk.encode(Self.variety[...]))
        let error = #expect(throws: StoreError.self, "\(damage)") { try damaged.withUnsafeBytes { try RequestChunk.decode($0) } }
        #expect(error?.kind == .unreadable)
    }

    @Test func aBatchLargerThanAChunkIsSplitAndTheNewestComeFirst() async throws {
        let store = try TestPushlab().recordingStore(path: ":memory:", flushInterval: .seconds(3600))
        let count = RequestChunk.maximumCount * 2 + 5
        // Entries as a batch can hold them: nearly, not strictly, in order.
        var entries: [RequestLog.Entry] = []
        for sequence in 1...count {
            let rejected = sequence % 3 == 0
            entries.append(Self.entry(Int64(sequence), status: rejected ? 400 : 200, reason: rejected ? .badDeviceToken : nil))
        }
        entries.swapAt(100, 101)
        // A late request across the chunk boundary: the first two chunks' ranges overlap.
        entries.swapAt(RequestChunk.maximumCount - 1, RequestChunk.maximumCount)
        let straggler = String(repeating: "5a", count: 32)
        entries[RequestChunk.maximumCount].deviceToken = straggler
        let batchEntries = entries
        try await store.database.write { db in
            let batch = try #require(try BatchIndexRows.insert(observations: BatchItems([]), requests: BatchItems([batchEntries]), into: db))
            try RequestRows.insert(BatchItems([batchEntries]), batch: batch, into: db)
        }
        let chunks = try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM requestChunks") }
        #expect(chunks == 3)
        #expect(try store.requests(limit: 3).map(\.sequence) == [Int64(count), Int64(count - 1), Int64(count - 2)])
        #expect(try store.requests(status: 400, limit: 2).map(\.sequence) == [Int64(count - count % 3), Int64(count - count % 3 - 3)])
        #expect(try store.requests(limit: count + 10).count == count)
        #expect(try store.requests(deviceToken: Self.packedToken, limit: 5000).count == count - 1)
        #expect(try store.requests(deviceToken: straggler).map(\.sequence) == [Int64(RequestChunk.maximumCount)], "found in the second of two chunks whose ranges cover it")
        try await store.close()
    }

    /// Rows an older Pushlab wrote one per request move into chunks when the file is opened, and
    /// are found by token and without one, before and after new requests join them.
    @Test func aStoreFromBeforeTheChunksFindsItsOldRequests() async throws {
        let folder = try TemporaryDirectory()
        let token = String(repeating: "cd", count: 32)
        let path = try await folder.olderStore(upTo: "4-index-buckets") { db in
            for sequence in 1...3 {
                try db.execute(
                    sql: "INSERT INTO requests (sequence, time, connectionId, environment, deviceToken, topic, pushType, status, reason, apnsId) VALUES (?, 5, 2, 'production', ?, 'com.example', 'alert', ?, ?, ?)",
                    arguments: [sequence, sequence == 2 ? "ef" : token, sequence == 3 ? 410 : 200, sequence == 3 ? "Unregistered" : nil, "ID-\(sequence)"]
                )
            }
        }

        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        #expect(try store.requests(deviceToken: token).map(\.apnsID) == ["ID-3", "ID-1"])
        #expect(try store.requests(deviceToken: "EF").map(\.apnsID) == ["ID-2"])
        #expect(try store.requests(reason: "Unregistered").map(\.sequence) == [3])
        let saved = try #require(try store.requests(limit: 1).first)
        #expect(saved.environment == .production && saved.connectionID == 2 && saved.time == 5 && saved.topic == "com.example")
        lab.push(to: TestPushlab.unknownToken)
        try await store.flush()
        #expect(try store.requests().map(\.sequence) == [4, 3, 2, 1], "numbering goes on after the old rows")
        let tables = try await store.database.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(!tables.contains("requests"))
        try await store.close()
    }

    @Test func canonicalIDsKeepTheirCase() throws {
        let upper = try #require(CanonicalUUID("8E1B6B5E-0C6B-4A53-9C8E-4B6B1E2D3F40"))
        #expect(!upper.isLowercase && upper.text == "8E1B6B5E-0C6B-4A53-9C8E-4B6B1E2D3F40")
        let lower = try #require(CanonicalUUID("8e1b6b5e-0c6b-4a53-9c8e-4b6b1e2d3f40"))
        #expect(lower.isLowercase && lower.text == "8e1b6b5e-0c6b-4a53-9c8e-4b6b1e2d3f40")
        #expect(lower.high == upper.high && lower.low == upper.low)
        for notCanonical in ["8e1b6b5e-0C6B-4A53-9C8E-4B6B1E2D3F40", "8E1B6B5E0C6B4A539C8E4B6B1E2D3F40", "8E1B6B5E-0C6B-4A53-9C8E-4B6B1E2D3F4G", ""] {
            #expect(CanonicalUUID(notCanonical) == nil, "\(notCanonical)")
        }
    }
}
