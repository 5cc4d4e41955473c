import PushlabCore
import PushlabDelivery
import PushlabSimulator
import Synchronization
@testable import PushlabStore
import Testing

/// While a load test records faster than the busy rate, the writer holds the observations off and
/// the CPU goes to answering; it catches up when the load stops, when the hold mark (half the
/// backlog or history limit) waits, when a flush asks, or when it has held off long enough. Driven through `takeBatch` with
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

    /// What makes the records (the phones) is asked to wait from the hold mark on, and let go
    /// once the writer takes what waits.
    @Test func theHoldMarkHoldsWhatMakesTheRecords() {
        let buffer = buffer()
        let told = Told()
        buffer.onBackedUp { told.append($0) }
        record(49, into: buffer)
        #expect(told.values == [false])
        record(1, into: buffer, from: 50)
        #expect(told.values == [false, true])
        record(10, into: buffer, from: 51)
        #expect(told.values == [false, true], "told once")
        let batch = buffer.takeBatch(now: second(1))
        #expect(batch.writes.observationCount == 60, "the mark ends the writer's hold too")
        #expect(told.values == [false, true, false])
        buffer.finish(batch, error: nil, trimmed: .init())
        record(50, into: buffer, from: 61)
        buffer.onBackedUp(nil)
        #expect(told.values == [false, true, false, true, false], "a store that stops telling lets go")
    }

    /// A pipeline that heeds the store holds its queued deliveries while the store is backed up,
    /// and lets go once it stops heeding.
    @Test func aBackedUpStoreHoldsThePipelinesQueue() async throws {
        let lab = TestPushlab()
        let pipeline = DeliveryPipeline(simulator: lab.simulator)
        pipeline.queueDeliveries(capacity: 1_000) {}
        let store = try lab.recordingStore(path: ":memory:", flushInterval: .seconds(3600), backlogLimit: 100)
        let stopHeeding = pipeline.heed(store)
        store.record((1...49).map { .badge($0) })
        #expect(!pipeline.isHeld)
        store.record([.badge(50)])
        #expect(pipeline.isHeld)
        try await store.flush()
        #expect(!pipeline.isHeld)
        store.record((51...100).map { .badge($0) })
        #expect(pipeline.isHeld)
        stopHeeding()
        #expect(!pipeline.isHeld, "a pipeline that stops heeding lets go")
        try await store.close()
    }

    /// Half the history limit, so that nothing waits long enough to be shed; but at least 65,536:
    /// under a limit that small, shedding what it would delete anyway is cheaper than waiting.
    @Test(arguments: [(nil, 2_000_000, 1_000_000), (1_000_000, 2_000_000, 500_000), (4_000_000, 2_000_000, 1_000_000), (1_000, 2_000_000, 65_536), (nil, 100, 50)])
    func theHoldMarkIsHalfTheSmallerLimit(historyLimit: Int?, backlogLimit: Int, mark: Int) {
        let buffer = WriteBuffer(largeBatchSize: 1_000, backlogLimit: backlogLimit, retention: historyLimit.map(HistoryRetention.init))
        #expect(buffer.holdMark == mark)
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

/// What `onBackedUp` was told, in order.
private final class Told: Sendable {
    private let told = Mutex<[Bool]>([])
    func append(_ value: Bool) { told.withLock { $0.append(value) } }
    var values: [Bool] { told.withLock { $0 } }
}
