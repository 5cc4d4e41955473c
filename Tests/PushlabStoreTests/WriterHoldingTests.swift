import PushlabCore
import PushlabPacing
import PushlabSimulator
@testable import PushlabStore
import Testing

/// While a load test records faster than the busy rate, the writer holds the observations off and
/// the CPU goes to answering; it catches up when the load stops, when half the backlog limit
/// waits, when a flush asks, or when it has held off long enough. Driven through `takeBatch` with
/// explicit times, one look a second at 10 items a second.
@Suite struct WriterHoldingTests {
    private let start = ContinuousClock.now

    private func buffer(backlogLimit: Int = 100) -> WriteBuffer {
        WriteBuffer(largeBatchSize: 1_000, backlogLimit: backlogLimit, hold: BusyHold(busyRate: 10, longest: .seconds(10), lookInterval: .zero, start: start))
    }

    private func second(_ count: Int) -> ContinuousClock.Instant { start + .seconds(count) }

    private func record(_ count: Int, into buffer: WriteBuffer, from first: Int64 = 1) {
        buffer.append((first..<first + Int64(count)).map { .badge($0) })
    }

    @Test func aBusyServerIsNotWrittenForUntilTheLoadStops() {
        let buffer = buffer()
        record(20, into: buffer)
        #expect(buffer.takeBatch(now: second(1)).isHeld)
        record(20, into: buffer, from: 21)
        #expect(buffer.takeBatch(now: second(2)).isHeld)
        #expect(buffer.backlog == 40)

        record(5, into: buffer, from: 41)  // under the busy rate: the load has stopped
        let batch = buffer.takeBatch(now: second(3))
        #expect(batch.writes.observationCount == 45)
    }

    @Test func aQuietServerIsWrittenForAtOnce() {
        let buffer = buffer()
        record(3, into: buffer)
        #expect(buffer.takeBatch(now: second(1)).writes.observationCount == 3)
    }

    @Test func halfTheBacklogLimitEndsTheHold() {
        let buffer = buffer()
        record(49, into: buffer)
        #expect(buffer.takeBatch(now: second(1)).isHeld)
        record(11, into: buffer, from: 50)
        #expect(buffer.takeBatch(now: second(2)).writes.observationCount == 60)
    }

    /// Held for at most 10 s; then written for as the load goes on, and held again only in a
    /// new busy spell.
    @Test func theHoldEndsAfterTheLongestHold() {
        let buffer = buffer(backlogLimit: 1_000)
        var next: Int64 = 1
        func busySecond(_ at: Int) -> Int? {
            record(10, into: buffer, from: next)
            next += 10
            let batch = buffer.takeBatch(now: second(at))
            return batch.isHeld ? nil : batch.writes.observationCount
        }
        for at in 1...10 { #expect(busySecond(at) == nil, "second \(at)") }
        #expect(busySecond(11) == 110, "held since second 1: 10 s have passed")
        #expect(busySecond(12) == 10, "the same spell is not held again")
        #expect(buffer.takeBatch(now: second(13)).writes.observationCount == 0, "the load stops")
        #expect(busySecond(14) == nil, "a new spell is held")
    }

    @Test func aFlushIsAnsweredEvenWhileBusy() async throws {
        let lab = TestPushlab()
        let folder = try TemporaryDirectory()
        let store = try lab.recordingStore(path: folder.path("store.db"),
            flushInterval: .milliseconds(10), busyRate: 1, longestHold: .seconds(3600)
        )
        store.record((1...50).map { .badge($0) })
        try await store.flush()
        #expect(store.backlog == 0)
        #expect(store.statistics.itemsWritten == 50)
        try await store.close()
    }

    @Test func withoutAHoldEveryLookTakesABatch() {
        let buffer = WriteBuffer(largeBatchSize: 1_000, backlogLimit: 100)
        record(40, into: buffer)
        #expect(buffer.takeBatch(now: start).writes.observationCount == 40)
    }
}
