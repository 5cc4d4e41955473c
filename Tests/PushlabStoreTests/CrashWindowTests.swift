import PushlabCore
import PushlabDelivery
import PushlabSimulator
@testable import PushlabStore
import Testing

/// Every request is committed within the crash window: each batch takes all of them, even while
/// the observations are held, and no more observations or device states than fit the commit
/// budget, so that no commit outlasts it. Driven through `takeBatch`, `finish` and `nextTake`
/// with explicit times and measured costs.
@Suite struct CrashWindowTests {
    private let start = ContinuousClock.now
    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    /// Busy above 10 items a second, looked at every time.
    private func busyBuffer() -> WriteBuffer {
        WriteBuffer(largeBatchSize: 1_000_000, backlogLimit: 1_000_000, hold: BusyHold(busyRate: 10, longest: .seconds(10), lookInterval: .zero, start: start))
    }

    private func requests(_ range: ClosedRange<Int64>) -> [RequestLog.Entry] { range.map { RequestChunkTests.entry($0) } }

    /// `chunks` recordings of 1,000 observations each.
    private func recordObservations(_ chunks: Int, into buffer: WriteBuffer) {
        for chunk in 0..<chunks {
            let first = Int64(chunk * 1_000 + 1)
            buffer.append((first..<first + 1_000).map { Observation.badge($0) })
        }
    }

    @Test func theRequestsAreTakenWhileTheObservationsAreHeld() {
        let buffer = busyBuffer()
        buffer.append((1...20).map { Observation.badge($0) })
        buffer.append(requests(1...30))
        let batch = buffer.takeBatch(now: at(1_000))
        #expect(batch.isHeld)
        #expect(batch.writes.requestCount == 30 && batch.writes.observationCount == 0)
        #expect(!batch.tookEveryObservation, "device states wait with the observations")
        #expect(!batch.maySaveDevices, "and so do saved snapshots, while the server is busy")
        #expect(buffer.backlog == 50, "what is taken counts until it is committed")
        buffer.finish(batch, error: nil, trimmed: .init())
        #expect(buffer.backlog == 20)
        #expect(buffer.unwritten.observations.map(\.sequence) == Array(1...20))
    }

    /// The starting costs: 20 µs an observation and 2 ms a commit, so 4,900 observations fit the
    /// 100 ms budget of a 250 ms window; they are taken a whole recording at a time.
    @Test func aBatchTakesWhatItsBudgetFitsAndTheRestFollowsAtOnce() {
        let buffer = WriteBuffer(largeBatchSize: 1_000_000, backlogLimit: 1_000_000)
        recordObservations(10, into: buffer)
        buffer.append(requests(1...5))
        let first = buffer.takeBatch(now: at(0))
        #expect(first.writes.observationCount == 4_000 && first.writes.requestCount == 5)
        #expect(!first.tookEveryObservation)
        buffer.finish(first, error: nil, trimmed: .init())
        #expect(buffer.nextTake(now: at(50)) == nil, "what did not fit goes at once")

        let second = buffer.takeBatch(now: at(50))
        #expect(second.writes.observations.first?.sequence == 4_001)
        #expect(second.writes.observationCount == 4_000)
        buffer.finish(second, error: nil, trimmed: .init())
        let third = buffer.takeBatch(now: at(100))
        #expect(third.writes.observationCount == 2_000 && third.tookEveryObservation)
        buffer.finish(third, error: nil, trimmed: .init())
        #expect(buffer.nextTake(now: at(110)) == at(210), "caught up: the writer sleeps its interval")
    }

    /// Observations measured at 100 µs each: the next batch fits 980, so it takes one recording
    /// of 1,000 (at least one always goes, so that what waits moves on).
    @Test func aSlowCommitMakesTheNextBatchSmaller() {
        let buffer = WriteBuffer(largeBatchSize: 1_000_000, backlogLimit: 1_000_000)
        recordObservations(10, into: buffer)
        let first = buffer.takeBatch(now: at(0))
        buffer.finish(first, error: nil, trimmed: .init(), measured: WriteCosts.Measured(
            observations: 4_000, observationSeconds: 0.4, totalSeconds: 0.402
        ))
        #expect(abs(buffer.costs.perObservation - 100e-6) < 1e-12)
        #expect(buffer.takeBatch(now: at(500)).writes.observationCount == 1_000)
    }

    @Test func deviceStatesJoinOnlyABatchThatTookEveryObservationAndFollowWhenTheyDoNotFit() throws {
        let lab = TestPushlab()
        for index in 0..<100 { try lab.addPhone("phone-\(index)") }
        let buffer = WriteBuffer(largeBatchSize: 1_000_000, backlogLimit: 1_000_000)
        // Measured at 10 ms a device: 9 would fit, the least that goes is 64.
        buffer.append(requests(1...1))
        buffer.finish(buffer.takeBatch(now: at(0)), error: nil, trimmed: .init(), measured: WriteCosts.Measured(
            requests: 1, devices: 1, deviceSeconds: 0.01, totalSeconds: 0.012
        ))

        var batch = buffer.takeBatch(now: at(100))
        #expect(batch.tookEveryObservation && batch.deviceLimit == 64 && !batch.devicesWaiting)
        buffer.addDevices(lab.simulator.takeChanges(), to: &batch)
        #expect(batch.writes.devices.count == 64)
        #expect(buffer.backlog == 100, "taken and waiting, until committed")
        buffer.finish(batch, error: nil, trimmed: .init())
        #expect(buffer.nextTake(now: at(120)) == nil, "the rest goes at once")

        var next = buffer.takeBatch(now: at(120))
        #expect(next.devicesWaiting)
        buffer.addDevices(lab.simulator.takeChanges(), to: &next)
        #expect(next.writes.devices.count == 36)
        buffer.finish(next, error: nil, trimmed: .init())
        #expect(buffer.backlog == 0)
    }

    /// Under a long load observations always wait: saved snapshots join each batch with a share
    /// of the budget of their own, and a removal (which deletes Notification Center rows that
    /// waiting observations may add) waits until a batch takes every observation.
    @Test func savedSnapshotsJoinWhileObservationsWaitAndRemovalsWaitForThem() throws {
        let lab = TestPushlab()
        for index in 0..<10 { try lab.addPhone("phone-\(index)") }
        try lab.addPhone("gone")
        _ = lab.simulator.takeChanges()
        try lab.simulator.removeDevice("gone")
        _ = try lab.simulator.updateDevice("phone-0", online: false)
        _ = try lab.simulator.updateDevice("phone-1", online: false)
        let buffer = WriteBuffer(largeBatchSize: 1_000_000, backlogLimit: 1_000_000)
        recordObservations(10, into: buffer)

        var batch = buffer.takeBatch(now: at(0))
        #expect(batch.writes.observationCount == 4_000)
        #expect(!batch.tookEveryObservation && batch.maySaveDevices)
        // A quarter of the 100 ms budget at the starting 200 µs a device.
        #expect(batch.deviceLimit == 125)
        buffer.addDevices(lab.simulator.takeChanges(), to: &batch)
        #expect(batch.writes.devices.changes.keys.sorted() == ["phone-0", "phone-1"])
        buffer.finish(batch, error: nil, trimmed: .init())

        var second = buffer.takeBatch(now: at(50))
        #expect(!second.tookEveryObservation && second.devicesWaiting)
        buffer.addDevices(lab.simulator.takeChanges(), to: &second)
        #expect(second.writes.devices.isEmpty, "the removal still waits")
        buffer.finish(second, error: nil, trimmed: .init())

        var last = buffer.takeBatch(now: at(100))
        #expect(last.writes.observationCount == 2_000 && last.tookEveryObservation)
        buffer.addDevices(lab.simulator.takeChanges(), to: &last)
        #expect(last.writes.devices.changes.keys.sorted() == ["gone"])
        guard case .removed? = last.writes.devices.changes["gone"] else {
            Issue.record("the removal is not in the batch")
            return
        }
        buffer.finish(last, error: nil, trimmed: .init())
        #expect(buffer.backlog == 0)
    }

    /// A writer told to sleep longer than the window allows is woken by the first request (an
    /// observation may wait).
    @Test func aRequestWakesAWriterThatWouldSleepPastTheWindow() {
        let long = WriteBuffer(largeBatchSize: 1_000, backlogLimit: 1_000, schedule: CommitSchedule(window: .milliseconds(250), interval: .seconds(3600)))
        #expect(long.nextTake(now: at(0)) == at(3_600_000))
        long.append([Observation.badge(1)])
        #expect(long.append(requests(1...2)))
        #expect(!long.append(requests(3...4)), "woken already")

        let usual = WriteBuffer(largeBatchSize: 1_000, backlogLimit: 1_000, schedule: CommitSchedule(window: .milliseconds(250), interval: .milliseconds(100)))
        #expect(usual.nextTake(now: at(0)) == at(100))
        #expect(!usual.append(requests(1...2)), "the interval is short enough")
    }

    /// The window measured: from the take before a batch with requests to the end of its commit.
    @Test func theLongestWaitOfARequestIsMeasured() {
        let buffer = WriteBuffer(largeBatchSize: 1_000, backlogLimit: 1_000)
        buffer.finish(buffer.takeBatch(now: at(0)), error: nil, trimmed: .init(), now: at(5))
        buffer.append(requests(1...3))
        buffer.finish(buffer.takeBatch(now: at(100)), error: nil, trimmed: .init(), now: at(130))
        buffer.finish(buffer.takeBatch(now: at(230)), error: nil, trimmed: .init(), now: at(400))
        #expect(buffer.statistics.longestRequestWait == .milliseconds(130), "a batch without requests does not count")
    }

    @Test func aFlushTakesEverythingWhateverTheBudget() async throws {
        let lab = TestPushlab()
        let folder = try TemporaryDirectory()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .seconds(3600))
        for chunk in 0..<10 {
            let first = Int64(chunk * 1_000 + 1)
            store.record((first..<first + 1_000).map { Observation.badge($0) })
        }
        try await store.flush()
        #expect(store.backlog == 0)
        #expect(store.statistics.batchesWritten == 1 && store.statistics.itemsWritten == 10_000)
        try await store.close()
    }

    /// A record that came right after a take waits for that commit and the next one: the next
    /// take comes early enough for a commit as long as the last ones to end within the window.
    @Test func theNextTakeComesEarlyEnoughForTheWindow() {
        let buffer = WriteBuffer(largeBatchSize: 1_000, backlogLimit: 1_000, schedule: CommitSchedule(window: .milliseconds(250), interval: .milliseconds(100)))
        buffer.append(requests(1...2))
        buffer.finish(buffer.takeBatch(now: at(0)), error: nil, trimmed: .init(), now: at(40))
        buffer.append(requests(3...4))
        #expect(buffer.nextTake(now: at(40)) == at(140), "a quick commit: the interval")

        buffer.finish(buffer.takeBatch(now: at(140)), error: nil, trimmed: .init(), now: at(260))
        buffer.append(requests(5...6))
        #expect(buffer.nextTake(now: at(260)) == at(240), "a 120 ms commit: at once")
    }
}

@Suite struct WriteCostsTests {
    private func near(_ value: Double, _ expected: Double) -> Bool { abs(value - expected) < 1e-12 }

    @Test func aHigherCostCountsAtOnceALowerOneAQuarterAtATime() {
        var costs = WriteCosts()
        costs.learn(WriteCosts.Measured(requests: 1_000, indexAndRequestSeconds: 0.01, totalSeconds: 0.013))
        #expect(near(costs.perRequest, 10e-6) && near(costs.perCommit, 3e-3))
        costs.learn(WriteCosts.Measured(requests: 1_000, indexAndRequestSeconds: 0.002, totalSeconds: 0.003))
        #expect(near(costs.perRequest, 10e-6 * 0.75 + 2e-6 * 0.25))
        #expect(near(costs.perCommit, 3e-3 * 0.75 + 1e-3 * 0.25))
    }

    /// The index is shared by observations and requests, by count.
    @Test func theIndexIsSharedByCount() {
        var costs = WriteCosts()
        costs.learn(WriteCosts.Measured(observations: 1_000, requests: 1_000, observationSeconds: 0.03, indexAndRequestSeconds: 0.02, totalSeconds: 0.06))
        #expect(near(costs.perObservation, 40e-6) && near(costs.perRequest, 10e-6))
    }

    @Test func aBatchThatWasNotMeasuredTeachesNothing() {
        var costs = WriteCosts()
        costs.learn(WriteCosts.Measured(requests: 1_000))
        #expect(costs == WriteCosts())
    }

    @Test func whatFitsIsAtLeastTheMinimum() {
        #expect(WriteCosts.fitting(.milliseconds(100), spent: 0.05, perItem: 0.001, minimum: 1) == 50)
        #expect(WriteCosts.fitting(.milliseconds(100), spent: 0.2, perItem: 0.001, minimum: 64) == 64)
    }
}
