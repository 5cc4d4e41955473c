import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

/// While a load test records faster than the busy rate, the writer holds off and the CPU goes to
/// answering; it catches up when the load stops, when half the backlog limit waits, when a flush
/// asks, or when it has held off long enough. Driven through `takeBatch` with explicit times.
@Suite struct WriterHoldingTests {
    private let policy = WriteBuffer.HoldingPolicy(busyItems: 10, longest: .seconds(10))
    private let start = ContinuousClock.now

    private func buffer() -> WriteBuffer { WriteBuffer(largeBatchSize: 1_000, backlogLimit: 100) }

    private func record(_ count: Int, into buffer: WriteBuffer, from first: Int64 = 1) {
        buffer.append((first..<first + Int64(count)).map { .badge($0) })
    }

    @Test func aBusyServerIsNotWrittenForUntilTheLoadStops() {
        let buffer = buffer()
        record(20, into: buffer)
        #expect(buffer.takeBatch(holding: policy, now: start) == nil)
        record(20, into: buffer, from: 21)
        #expect(buffer.takeBatch(holding: policy, now: start + .seconds(1)) == nil)
        #expect(buffer.backlog == 40)

        record(5, into: buffer, from: 41)  // under the busy rate: the load has stopped
        let batch = buffer.takeBatch(holding: policy, now: start + .seconds(2))
        #expect(batch?.writes.observationCount == 45)
    }

    @Test func aQuietServerIsWrittenForAtOnce() {
        let buffer = buffer()
        record(3, into: buffer)
        #expect(buffer.takeBatch(holding: policy, now: start)?.writes.observationCount == 3)
    }

    @Test func halfTheBacklogLimitEndsTheHold() {
        let buffer = buffer()
        record(49, into: buffer)
        #expect(buffer.takeBatch(holding: policy, now: start) == nil)
        record(11, into: buffer, from: 50)
        #expect(buffer.takeBatch(holding: policy, now: start + .milliseconds(100))?.writes.observationCount == 60)
    }

    @Test func theHoldEndsAfterTheLongestHold() {
        let buffer = buffer()
        record(10, into: buffer)
        #expect(buffer.takeBatch(holding: policy, now: start) == nil)
        record(10, into: buffer, from: 11)
        #expect(buffer.takeBatch(holding: policy, now: start + .seconds(9)) == nil)
        record(10, into: buffer, from: 21)
        #expect(buffer.takeBatch(holding: policy, now: start + .seconds(10))?.writes.observationCount == 30)
        // A new spell of holding starts from there.
        record(10, into: buffer, from: 31)
        #expect(buffer.takeBatch(holding: policy, now: start + .seconds(11)) == nil)
    }

    @Test func aFlushIsAnsweredEvenWhileBusy() async throws {
        let lab = TestPushlab()
        let folder = try TemporaryDirectory()
        let store = try PushlabStore(
            path: folder.path("store.db"), simulator: lab.simulator, requestLog: lab.requestLog,
            flushInterval: .milliseconds(10), busyRate: 1, longestHold: .seconds(3600)
        )
        store.record((1...50).map { .badge($0) })
        try await store.flush()
        #expect(store.backlog == 0)
        #expect(store.statistics.itemsWritten == 50)
        try await store.close()
    }

    @Test func withoutAPolicyEveryLookTakesABatch() {
        let buffer = buffer()
        record(40, into: buffer)
        #expect(buffer.takeBatch(now: start)?.writes.observationCount == 40)
    }
}
