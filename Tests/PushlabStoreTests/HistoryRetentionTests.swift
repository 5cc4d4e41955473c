import GRDB
import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

@Suite("The history limit: the oldest batches go, the newest stay")
struct HistoryRetentionTests {
    /// Batches of four observations under a limit of ten (trimmed past eleven): the first batch
    /// goes only once dropping it still leaves ten.
    @Test func observationsPastTheLimitGoABatchAtATime() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .seconds(3600), historyLimit: 10
        )
        var sequence: Int64 = 0
        func recordBatch() async throws {
            store.record((1...4).map { _ in sequence += 1; return .badge(sequence, device: sequence.isMultiple(of: 2) ? "even" : "odd") })
            try await store.flush()
        }
        for _ in 0..<3 { try await recordBatch() }
        #expect(try store.observations(limit: 100).map(\.sequence) == Array(1...12), "12 is past 11, but without the first batch only 8 would be left")
        #expect(store.statistics.trimmedObservations == 0)

        try await recordBatch()
        #expect(try store.observations(limit: 100).map(\.sequence) == Array(5...16))
        #expect(try store.observations(deviceID: "even", limit: 100).map(\.sequence) == [6, 8, 10, 12, 14, 16])
        #expect(try store.observations(deviceID: "odd", since: 1, limit: 2).map(\.sequence) == [5, 7])
        #expect(store.statistics.trimmedObservations == 4)
        #expect(try await count("observationBuckets WHERE batch = 1", in: store) == 0)
        #expect(try await count("observationBuckets WHERE batch = 2", in: store) ?? 0 > 0)
        #expect(try await count("batches", in: store) == 3)
        try await store.close()

        let reader = try StoreReader(path: store.path)
        #expect(try reader.observations(limit: 100).map(\.sequence) == Array(5...16))
    }

    @Test func requestsPastTheLimitGoABatchAtATime() async throws {
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: ":memory:", flushInterval: .seconds(3600), historyLimit: 5)
        for _ in 0..<4 {
            for _ in 0..<3 { lab.push(to: TestPushlab.unknownToken) }
            try await store.flush()
        }
        #expect(try store.requests(limit: 100).map(\.sequence) == Array((7...12).reversed()))
        #expect(try store.requests(deviceToken: TestPushlab.unknownToken, limit: 100).count == 6)
        #expect(store.statistics.trimmedRequests == 6)
        #expect(try await count("batches", in: store) == 2)
        try await store.close()
    }

    /// A few observations at the start of a run, then a load of requests: the old batch that
    /// holds the newest observations keeps them, and its requests still go.
    @Test func eachKindIsTrimmedOnItsOwn() async throws {
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: ":memory:", flushInterval: .seconds(3600), historyLimit: 4)
        store.record([.badge(1), .badge(2), .badge(3)])
        for _ in 0..<3 { lab.push(to: TestPushlab.unknownToken) }
        try await store.flush()
        for _ in 0..<3 {
            for _ in 0..<3 { lab.push(to: TestPushlab.unknownToken) }
            try await store.flush()
        }
        #expect(try store.observations(limit: 100).map(\.sequence) == [1, 2, 3])
        #expect(try store.observations(deviceID: "phone", limit: 100).map(\.sequence) == [1, 2, 3])
        #expect(try store.requests(limit: 100).map(\.sequence) == Array((7...12).reversed()))
        #expect(try store.requests(deviceToken: TestPushlab.unknownToken, limit: 100).count == 6)
        #expect(store.statistics.trimmedRequests == 6 && store.statistics.trimmedObservations == 0)
        #expect(try await count("batches", in: store) == 3, "the first batch's row stays for its observations; the second's went with its requests")
        try await store.close()
    }

    /// A load the disk cannot keep up with: what waits past the limit is shed, oldest first and
    /// a whole recording at a time, and counted as trimmed; the backlog limit, which would drop
    /// the newest, does not apply.
    @Test func whatWaitsPastTheLimitIsShedOldestFirstNotDropped() {
        let buffer = WriteBuffer(largeBatchSize: 1_000, backlogLimit: 3, retention: HistoryRetention(limit: 5))
        var sequence: Int64 = 0
        func recordFour() { buffer.append((1...4).map { _ in sequence += 1; return .badge(sequence) }) }
        recordFour()
        recordFour()
        #expect(buffer.unwritten.observations.map(\.sequence) == Array(1...8), "without the first four, fewer than five would wait")
        recordFour()
        #expect(buffer.unwritten.observations.map(\.sequence) == Array(5...12))

        for first in stride(from: 1, through: 7, by: 3) {
            buffer.append((first..<first + 3).map { RequestChunkTests.entry(Int64($0)) })
        }
        #expect(buffer.unwritten.requests.map(\.sequence) == Array(4...9))
        #expect(buffer.statistics.trimmedObservations == 4 && buffer.statistics.trimmedRequests == 3)
        #expect(buffer.statistics.shedItems == 7)
        #expect(buffer.statistics.droppedItems == 0)
    }

    /// A batch that failed goes back in front of what came meanwhile, and the oldest of both is shed.
    @Test func aFailedBatchPutBackIsShedToo() throws {
        let buffer = WriteBuffer(largeBatchSize: 1_000, backlogLimit: 3, retention: HistoryRetention(limit: 5))
        buffer.append((1...4).map { Observation.badge($0) })
        buffer.append((5...8).map { Observation.badge($0) })
        let batch = buffer.takeBatch()
        buffer.append((9...12).map { Observation.badge($0) })
        buffer.finish(batch, error: StoreError(.cannotWrite, "disk full"), trimmed: .init())
        #expect(buffer.unwritten.observations.map(\.sequence) == Array(5...12))
        #expect(buffer.statistics.trimmedObservations == 4 && buffer.statistics.droppedItems == 0)
        #expect(buffer.statistics.shedItems == 4)
        #expect(buffer.statistics.failedBatches == 1)
    }

    @Test func withoutALimitNothingGoes() async throws {
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: ":memory:", flushInterval: .seconds(3600))
        for batch in 0..<5 {
            store.record((1...4).map { .badge(Int64(batch * 4 + $0)) })
            try await store.flush()
        }
        #expect(try store.observations(limit: 100).count == 20)
        #expect(store.statistics.trimmedObservations == 0 && store.statistics.shedItems == 0)
        try await store.close()
    }

    @Test(arguments: [0, -3])
    func aLimitUnderOneIsRefused(_ limit: Int) {
        let lab = TestPushlab()
        let error = #expect(throws: StoreError.self) {
            try lab.recordingStore(path: ":memory:", historyLimit: limit)
        }
        #expect(error?.kind == .invalidSetting)
        #expect(error?.description.contains("\(limit)") == true)
    }

    private func count(_ rows: String, in store: PushlabStore) async throws -> Int? {
        try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(rows)") }
    }
}
