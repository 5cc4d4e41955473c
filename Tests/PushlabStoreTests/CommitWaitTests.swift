import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Synchronization
import Testing

/// What `pushlab serve --durable` answers after: a wait for the commit of everything recorded so
/// far. One commit answers every wait that came before it (group commit).
@Suite("Waiting for a commit")
struct CommitWaitTests {
    private let start = ContinuousClock.now
    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    /// The answers a buffer gave, in order.
    final class Answers: Sendable {
        private let answers = Mutex<[String]>([])
        func record(_ ticket: CommitTicket, _ committed: Bool) { answers.withLock { $0.append("\(ticket.number) \(committed)") } }
        var all: [String] { answers.withLock { $0 } }
    }

    @Test func oneCommitAnswersEveryWaitThatCameBeforeIt() {
        let buffer = WriteBuffer(largeBatchSize: 1_000, backlogLimit: 1_000)
        let answers = Answers()
        buffer.append([RequestChunkTests.entry(1)])
        let first = buffer.afterCommit(answers.record).ticket
        buffer.append([RequestChunkTests.entry(2)])
        let second = buffer.afterCommit(answers.record).ticket
        #expect(first == second, "no take between them: the same commit")

        let batch = buffer.takeBatch(now: at(0))
        #expect(batch.ticket == first && batch.writes.requestCount == 2)
        buffer.append([RequestChunkTests.entry(3)])
        let third = buffer.afterCommit(answers.record).ticket
        #expect(third > first)
        buffer.finish(batch, error: nil, trimmed: .init())
        #expect(answers.all == ["1 true", "1 true"])

        let next = buffer.takeBatch(now: at(10))
        buffer.finish(next, error: StoreError(.cannotWrite, "disk full"), trimmed: .init())
        #expect(answers.all.last == "2 false", "a failed commit is no commit")
    }

    @Test func aWaitWakesASleepingWriterOnceAndKeepsItAwake() {
        let buffer = WriteBuffer(largeBatchSize: 1_000, backlogLimit: 1_000)
        let answers = Answers()
        #expect(buffer.nextTake(now: at(0)) != nil, "nothing waits: the writer sleeps")
        #expect(buffer.afterCommit(answers.record).wakeWriter)
        #expect(!buffer.afterCommit(answers.record).wakeWriter, "woken already")
        #expect(buffer.nextTake(now: at(1)) == nil, "waits pending: no sleep")
        buffer.finish(buffer.takeBatch(now: at(2)), error: nil, trimmed: .init())
        #expect(answers.all == ["1 true", "1 true"])
    }

    @Test func aWaitIsAnsweredOnceTheRecordIsInTheFile() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        // The writer would sleep for an hour: the wait wakes it.
        let store = try lab.recordingStore(path: path, flushInterval: .seconds(3600))
        lab.push(to: TestPushlab.unknownToken)
        let committed = await withCheckedContinuation { continuation in
            _ = store.afterCommit { _, committed in continuation.resume(returning: committed) }
        }
        #expect(committed)

        let next = TestPushlab()
        let survivor = try next.recordingStore(path: path)
        #expect(try survivor.requests().map(\.status) == [400], "what a kill -9 now would leave")
        try await survivor.close()
        try await store.close()
    }

    @Test func aCommitThatFailsIsAnsweredAsNotCommitted() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .seconds(3600))
        try await store.database.write { db in try db.execute(sql: "ALTER TABLE requestChunks RENAME TO requestChunks_away") }
        lab.push(to: TestPushlab.unknownToken)
        let wait = { await withCheckedContinuation { continuation in
            _ = store.afterCommit { _, committed in continuation.resume(returning: committed) }
        } }
        #expect(await wait() == false)

        try await store.database.write { db in try db.execute(sql: "ALTER TABLE requestChunks_away RENAME TO requestChunks") }
        #expect(await wait() == true, "the record goes again with the next commit")
        #expect(try store.requests().map(\.status) == [400])
        try await store.close()
    }

    @Test func aWaitAfterCloseIsRefusedAtOnce() async throws {
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: ":memory:")
        try await store.close()
        let answers = Answers()
        #expect(store.afterCommit(answers.record) == .refused)
        #expect(answers.all == ["0 false"])
    }
}
