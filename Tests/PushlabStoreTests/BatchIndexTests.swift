import Foundation
import GRDB
import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

@Suite("The device index: one device's history and one token's requests, batch by batch")
struct BatchIndexTests {
    @Test func aDevicesObservationsAcrossBatchesComeBackInSequenceOrder() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .seconds(3600))
        // Sequences are numbered when observed and written when a batch is cut, so a batch may
        // hold a lower number than the one before it.
        let batches: [[Observation]] = [
            [.badge(1, device: "a"), .badge(2, device: "b"), .badge(4, device: "a")],
            [.badge(5, device: "c"), .badge(3, device: "a"), .badge(6, device: "a")],
            [.badge(7, device: "b")],
            [.badge(8, device: "a"), .badge(9, device: "a")],
        ]
        for batch in batches {
            store.record(batch)
            try await store.flush()
        }
        #expect(try store.observations(deviceID: "a", limit: 100).map(\.sequence) == [1, 3, 4, 6, 8, 9])
        #expect(try store.observations(deviceID: "a", since: 3, limit: 3).map(\.sequence) == [4, 6, 8])
        #expect(try store.observations(deviceID: "b", since: 2, limit: 100).map(\.sequence) == [7])
        #expect(try store.observations(deviceID: "c", since: 5, limit: 100).isEmpty)
        #expect(try store.observations(deviceID: "nobody", limit: 100).isEmpty)
        let reader = try StoreReader(path: store.path)
        #expect(try reader.observations(deviceID: "a", since: 1, limit: 2).map(\.sequence) == [3, 4])
        try await store.close()
    }

    @Test func aTokensRequestsAcrossBatchesComeBackNewestFirst() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .seconds(3600))
        try lab.addPhone("phone-1")
        let token = lab.token("phone-1")
        for _ in 0..<3 {
            lab.push(to: token)
            lab.push(to: TestPushlab.unknownToken)
            try await store.flush()
        }
        let mine = try store.requests(deviceToken: token, limit: 100)
        #expect(mine.count == 3 && mine.allSatisfy { $0.deviceToken == token && $0.status == 200 })
        #expect(mine.map(\.sequence) == mine.map(\.sequence).sorted(by: >))
        #expect(try store.requests(deviceToken: token, limit: 2).map(\.sequence) == Array(mine.prefix(2).map(\.sequence)))
        #expect(try store.requests(deviceToken: TestPushlab.unknownToken, status: 400, limit: 100).count == 3)
        #expect(try store.requests(deviceToken: token, status: 400, limit: 100).isEmpty)
        let reader = try StoreReader(path: store.path)
        #expect(try reader.requests(deviceToken: token, limit: 100) == mine)
        try await store.close()
    }

    /// Keys are written to disk: the hash of a text must stay FNV-1a over its UTF-8 bytes,
    /// whether the text is small, large or not ASCII.
    /// Keys are on disk: they stay the published FNV-1a values (`FNV1aTests` holds the hash to
    /// its definition).
    @Test func aKeyIsTheFNV1aHashOfTheTextsUTF8Bytes() {
        #expect(BatchIndexRows.key("") == Int64(bitPattern: 0xcbf2_9ce4_8422_2325))
        #expect(BatchIndexRows.key("a") == Int64(bitPattern: 0xaf63_dc4c_8601_ec8c))
        #expect(BatchIndexRows.key("foobar") == Int64(bitPattern: 0x8594_4171_f739_67e8))
        for text in ["phone-1", "bench-000042", "téléphone ☎︎"] { #expect(BatchIndexRows.key(text) == FNV1a(text).value, "\(text)") }
    }

    /// A batch of many devices, each with a push's run of observations, spread over the buckets:
    /// every bucket's row holds its own keys, sorted by key and then sequence, and each device
    /// finds exactly its own.
    @Test func aBatchOfManyDevicesIsIndexedBucketByBucketInOrder() async throws {
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: ":memory:")
        let devices = (0..<3000).map { "device-\($0)" }
        var batch: [Observation] = []
        var sequence: Int64 = 0
        for round in 0..<2 {
            for (index, device) in devices.enumerated() where (index + round) % 3 != 0 {
                for _ in 0..<3 {
                    sequence += 1
                    batch.append(.badge(sequence, device: device))
                }
            }
        }
        store.record(batch)
        try await store.flush()
        let rows = try store.database.read { db in try Row.fetchAll(db, sql: "SELECT bucket, entries FROM observationBuckets ORDER BY bucket") }
        var pairCount = 0
        for row in rows {
            let bucket: Int64 = row["bucket"]
            let blob: Data = row["entries"]
            let values = blob.withUnsafeBytes { Array($0.bindMemory(to: Int64.self)).map(Int64.init(littleEndian:)) }
            let pairs = stride(from: 0, to: values.count, by: 2).map { (key: UInt64(bitPattern: values[$0]), sequence: values[$0 + 1]) }
            #expect(pairs.allSatisfy { Int64($0.key >> 56) == bucket })
            #expect(zip(pairs, pairs.dropFirst()).allSatisfy { ($0.0.key, $0.0.sequence) < ($0.1.key, $0.1.sequence) })
            pairCount += pairs.count
        }
        #expect(pairCount == batch.count)
        #expect(rows.count > 8, "spread over buckets")
        for device in ["device-0", "device-1", "device-2", "device-1234", "device-2999"] {
            let expected = batch.filter { $0.deviceID == device }.map(\.sequence)
            #expect(try store.observations(deviceID: device, limit: 100).map(\.sequence) == expected)
        }
        try await store.close()
    }

    /// Keys are 64-bit hashes: a row another device's key points at is read and dropped.
    @Test func anotherDevicesRowUnderTheSameKeyIsNotReturned() async throws {
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: ":memory:")
        store.record([.badge(1, device: "a"), .badge(2, device: "b")])
        try await store.flush()
        try await store.database.write { db in
            let batch = try Int64.fetchOne(db, sql: "SELECT MAX(batch) FROM batches")
            let key = BatchIndexRows.key("b")
            let pairs: [Int64] = [key, 1, key, 2]
            try db.execute(
                sql: "INSERT OR REPLACE INTO observationBuckets (batch, bucket, entries) VALUES (?, ?, ?)",
                arguments: [batch, BatchIndexRows.bucket(key), pairs.withUnsafeBytes { Data($0) }]
            )
        }
        #expect(try store.observations(deviceID: "b", limit: 100).map(\.sequence) == [2])
        try await store.close()
    }

    /// A file written before the index existed is indexed when opened, as one batch.
    @Test func aStoreFromBeforeTheIndexFindsItsOldRows() async throws {
        let folder = try TemporaryDirectory()
        let path = try await folder.olderStore(upTo: "2-meta-notification-center") { db in
            try Self.insertOldObservations(into: db)
            try db.execute(sql: "INSERT INTO requests (sequence, time, connectionId, environment, deviceToken, status, apnsId) VALUES (1, 0, 1, 'development', 'ab', 200, 'X')")
        }

        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        #expect(try store.observations(deviceID: "a", limit: 100).map(\.sequence) == [1, 3])
        #expect(try store.requests(deviceToken: "ab").map(\.apnsID) == ["X"])
        store.record([.badge(4, device: "a")])
        try await store.flush()
        #expect(try store.observations(deviceID: "a", since: 1, limit: 100).map(\.sequence) == [3, 4])
        try await store.close()
    }

    /// A store indexed by (batch, key) rows, as Pushlab wrote them before the buckets, is
    /// regrouped when opened: its old batches are still found, and new ones join them.
    @Test func aStoreIndexedByKeyRowsFindsItsRowsInBuckets() async throws {
        let folder = try TemporaryDirectory()
        let token = String(repeating: "ab", count: 32)
        let path = try await folder.olderStore(upTo: "3-device-index-by-batch") { db in
            try Self.insertOldObservations(into: db)
            try db.execute(sql: "INSERT INTO requests (sequence, time, connectionId, environment, deviceToken, status, apnsId) VALUES (1, 0, 1, 'development', ?, 200, 'X')", arguments: [token])
            try db.execute(sql: "INSERT INTO batches (batch, firstObservation, lastObservation, firstRequest, lastRequest) VALUES (1, 1, 2, 1, 1), (2, 3, 3, NULL, NULL)")
            func blob(_ sequences: [Int64]) -> Data { sequences.map(\.littleEndian).withUnsafeBytes { Data($0) } }
            for (batch, device, sequences) in [(1, "a", [Int64(1)]), (1, "b", [2]), (2, "a", [3])] {
                try db.execute(sql: "INSERT INTO observationIndex (batch, deviceKey, sequences) VALUES (?, ?, ?)", arguments: [batch, BatchIndexRows.key(device), blob(sequences)])
            }
            try db.execute(sql: "INSERT INTO requestIndex (batch, tokenKey, sequences) VALUES (1, ?, ?)", arguments: [BatchIndexRows.key(token), blob([1])])
        }

        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        #expect(try store.observations(deviceID: "a", limit: 100).map(\.sequence) == [1, 3])
        #expect(try store.observations(deviceID: "b", limit: 100).map(\.sequence) == [2])
        #expect(try store.requests(deviceToken: token).map(\.apnsID) == ["X"])
        #expect(try store.requests(deviceToken: token.uppercased()).map(\.apnsID) == ["X"])
        store.record([.badge(4, device: "a")])
        try await store.flush()
        #expect(try store.observations(deviceID: "a", since: 1, limit: 100).map(\.sequence) == [3, 4])
        let tables = try await store.database.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
        #expect(!tables.contains("observationIndex") && !tables.contains("requestIndex"))
        try await store.close()
    }

    @Test func findingADeviceProbesTheIndexAndNeverScansIt() async throws {
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: ":memory:")
        let lookups: [(String, StatementArguments)] = [
            (BatchIndexRows.observationLookup, [Int64(1), 0]),
            (BatchIndexRows.requestLookup, [Int64(2)]),
        ]
        let plans = try await store.database.read { db in
            try lookups.map { sql, arguments in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                    .map { row -> String in row["detail"] }
                    .joined(separator: "; ")
            }
        }
        for plan in plans {
            #expect(plan.contains("SEARCH i USING PRIMARY KEY (batch=? AND "), "\(plan)")
            #expect(!plan.contains("SCAN i"), "\(plan)")
        }
        try await store.close()
    }

    /// Observations 1 and 3 of device "a" and 2 of "b", as an older Pushlab wrote them.
    static func insertOldObservations(into db: Database) throws {
        for (sequence, device) in [(1, "a"), (2, "b"), (3, "a")] {
            try db.execute(
                sql: "INSERT INTO observations (sequence, time, deviceId, bundleId, kind, details) VALUES (?, 0, ?, 'com.example', 'badge', '{\"badge\":1}')",
                arguments: [sequence, device]
            )
        }
    }
}
