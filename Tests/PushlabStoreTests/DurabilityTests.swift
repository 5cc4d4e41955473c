import Foundation
import GRDB
import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

@Suite("Durability: what a batch committed is there for the next process")
struct DurabilityTests {
    /// A second store on the same file, the first never closed: what the next process sees after
    /// a `kill -9`.
    @Test func aSecondOpenSeesEveryCommittedBatchAndNothingElse() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path, flushInterval: .seconds(3600))
        try lab.addPhone("phone-1")
        lab.push(to: lab.token("phone-1"))
        try await store.flush()
        let committed = try store.observations(limit: 1000)
        store.record([.badge(1_000)])

        let next = TestPushlab()
        let survivor = try next.recordingStore(path: path)
        #expect(!committed.isEmpty)
        #expect(try survivor.observations(limit: 1000) == committed, "the buffered observation was never committed")
        #expect(try survivor.requests().map(\.status) == [200])
        #expect(try survivor.load().map(\.id) == ["phone-1"])

        try await store.flush()
        #expect(try survivor.observations(since: 999, limit: 10).map(\.sequence) == [1_000])
        try await survivor.close()
        try await store.close()
    }

    @Test func aFileStoreIsInWALModeWithVersionedMigrations() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        let (journalMode, migrations) = try await store.database.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try StoreSchema.migrator.appliedIdentifiers(db))
        }
        #expect(journalMode == "wal")
        #expect(Set(migrations) == Set(StoreSchema.migrator.migrations))
        #expect(migrations.contains("1-observations-requests-devices"))
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        try await store.close()
    }

    @Test func anInMemoryStoreWorksAndLeavesNoFile() async throws {
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: ":memory:")
        try lab.addPhone("phone-1")
        lab.push(to: lab.token("phone-1"))
        try await store.flush()

        #expect(store.backlog == 0)
        #expect(try store.observations(kind: .badge, limit: 10).map(\.event) == [.badge(3)])
        #expect(try store.requests().map(\.status) == [200])
        #expect(try store.load().map(\.id) == ["phone-1"])
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/:memory:"))

        let other = TestPushlab()
        let separate = try other.recordingStore(path: ":memory:")
        #expect(try separate.observations().isEmpty, "each in-memory store is its own database")
        try await separate.close()
        try await store.close()
    }

    @Test func closeWritesWhatIsLeftAndStopsRecording() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path, flushInterval: .seconds(3600))
        store.record((1...5).map { .badge($0) })
        #expect(store.backlog == 5)
        #expect(store.statistics.batchesWritten == 0)

        try await store.close()
        #expect(store.backlog == 0)
        #expect(store.statistics.itemsWritten == 5)
        store.record([.badge(6)])
        #expect(store.backlog == 0, "nothing is recorded after close")
        await #expect(throws: StoreError(.closed, "The store is closed")) { try await store.flush() }
        try await store.close()

        let next = TestPushlab()
        let reader = try next.recordingStore(path: path)
        #expect(try reader.observations().map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(next.simulator.lastSequence == 5, "opening resumes numbering even without load()")
        try await reader.close()
    }

    @Test func theWriterWritesOnItsOwnEveryInterval() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .milliseconds(20))
        store.record([.badge(1), .badge(2)])
        let deadline = ContinuousClock.now + .seconds(10)
        while store.statistics.itemsWritten < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(store.statistics.itemsWritten == 2 && store.backlog == 0)
        let rows = try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT SUM(count) FROM observationChunks") }
        #expect(rows == 2)
        try await store.close()
    }

    @Test func aLargeBatchIsWrittenWholeAndTheBacklogIsBounded() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .seconds(3600),
            largeBatchSize: 10, backlogLimit: 30
        )
        store.record((1...25).map { .badge($0) })
        store.record((26...40).map { .badge($0) })
        #expect(store.backlog == 30)
        #expect(store.statistics.droppedItems == 10)

        try await store.flush()
        let statistics = store.statistics
        #expect(statistics.batchesWritten == 1 && statistics.largestBatch == 30 && statistics.largeBatches == 1)
        #expect(try store.observations(limit: 100).map(\.sequence) == Array(1...30))
        try await store.close()
    }

    @Test func aFailedBatchIsKeptAndWrittenOnceTheDatabaseRecovers() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .seconds(3600))
        try await store.database.write { db in try db.execute(sql: "ALTER TABLE observationChunks RENAME TO observationChunks_away") }
        store.record([.badge(1), .badge(2)])

        await #expect { try await store.flush() } throws: { error in
            let error = try #require(error as? StoreError)
            return error.kind == .cannotWrite && error.description.hasPrefix("Cannot write to store \(store.path): ")
        }
        #expect(store.backlog == 2)
        #expect(store.statistics.failedBatches == 1 && store.statistics.lastError?.kind == .cannotWrite)

        try await store.database.write { db in try db.execute(sql: "ALTER TABLE observationChunks_away RENAME TO observationChunks") }
        try await store.flush()
        #expect(store.backlog == 0)
        #expect(try store.observations().map(\.sequence) == [1, 2])
        try await store.close()
    }
}
