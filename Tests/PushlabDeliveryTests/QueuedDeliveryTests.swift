import Foundation
@testable import PushlabCore
import PushlabDelivery
import PushlabSimulator
import Testing

/// `pushlab serve` queues accepted pushes in the pipeline for a worker instead of delivering them
/// on the event loop. What the phones observe must not depend on it.
@Suite struct QueuedDeliveryTests {
    /// Pushes, a clock that moves on its own (as real time does) with ticks, local notifications,
    /// taps, a force-quit: told once with pushes delivered as accepted, once queued.
    @Test func aQueuedSimulatorObservesExactlyWhatAnInlineOneDoes() throws {
        let inline = try story(queue: nil)
        let queued = try story(queue: 1_000)
        #expect(inline.count > 20)
        #expect(queued == inline)
    }

    private func story(queue: Int?) throws -> [Observation] {
        let h = try PipelineHarness(queue: queue)
        let simulator = h.simulator
        let soon = LocalNotification(
            identifier: "soon", content: NotificationContent(title: "Reminder", body: "Time to go home", sound: "default", badge: 3),
            trigger: .timeInterval(seconds: 30, repeats: false)
        )
        try h.alert()
        try h.silent()
        _ = try simulator.scheduleLocal(soon, app: Fixture.bundleID, on: h.deviceID)
        try h.alert(collapseID: "same")
        // Real time: the clock moves, then a tick; a push accepted in between comes first.
        h.clock.advance(milliseconds: 20 * Fixture.second)
        try h.alert(collapseID: "same")
        h.clock.advance(milliseconds: 20 * Fixture.second)
        h.pipeline.runDueEvents()
        try h.silent()
        try simulator.interact(.tapNotification(bundleID: Fixture.bundleID, notificationID: nil), on: h.deviceID)
        try simulator.changeApp(Fixture.bundleID, on: h.deviceID, to: .forceQuit)
        try h.silent()
        try simulator.advanceClock(milliseconds: Fixture.hour)
        try h.alert()
        return h.all
    }

    @Test func anAcceptedPushWaitsUntilSomethingReadsTheDevice() throws {
        let h = try PipelineHarness(queue: 100)
        try h.alert()
        #expect(h.pipeline.queuedDeliveries == 1)
        #expect(h.recorded.isEmpty)
        #expect(h.wakes == 1)

        let app = try h.app()
        #expect(app.notificationCenter.count == 1)
        #expect(h.pipeline.queuedDeliveries == 0)
        #expect(h.recorded.delivered.count == 1)
    }

    @Test func aPendingTickIsNoQueuedPush() throws {
        let h = try PipelineHarness(queue: 100)
        try h.alert()
        h.clock.advance(milliseconds: Fixture.second)
        h.pipeline.runDueEvents()   // queued behind the push: a tick, which is no push
        #expect(h.pipeline.queuedDeliveries == 1)
        #expect(h.pipeline.deliverQueued(limit: 1) == 1)
        #expect(h.pipeline.queuedDeliveries == 0, "only the tick is left")
        #expect(h.pipeline.deliverQueued(limit: 10) == 1)
        #expect(h.pipeline.queuedDeliveries == 0)
    }

    @Test func theWorkerIsWokenOnlyWhenTheQueueStopsBeingEmpty() throws {
        let h = try PipelineHarness(queue: 100)
        let token = try h.token()
        for _ in 0..<5 { h.pipeline.accept(h.acceptedAlert(to: token)) }
        #expect(h.wakes == 1)
        #expect(h.pipeline.deliverQueued(limit: 2) == 2)
        #expect(h.pipeline.queuedDeliveries == 3)
        #expect(h.pipeline.deliverQueued(limit: 10) == 3)
        #expect(h.pipeline.deliverQueued(limit: 10) == 0)
        h.pipeline.accept(h.acceptedAlert(to: token))
        #expect(h.wakes == 2)
        #expect(h.recorded.delivered.count == 5)
    }

    @Test func aFullQueueMakesTheSenderDeliverABatchItself() throws {
        let h = try PipelineHarness(queue: 3)
        let token = try h.token()
        for _ in 0..<3 { h.pipeline.accept(h.acceptedAlert(to: token)) }
        #expect(h.pipeline.queuedDeliveries == 3)
        h.pipeline.accept(h.acceptedAlert(to: token))
        #expect(h.pipeline.queuedDeliveries == 0)
        #expect(h.recorded.delivered.count == 4)
    }

    /// During a long load the sender keeps the queue down to a 64th of its capacity: past that
    /// mark it delivers twice what it hands over, so that little waits when the load stops.
    @Test func drainingMakesTheSenderBringTheQueueDownToItsMark() throws {
        let h = try PipelineHarness(queue: 640)
        let token = try h.token()
        h.pipeline.accept((0..<100).map { _ in h.acceptedAlert(to: token) })
        #expect(h.pipeline.queuedDeliveries == 100, "a burst waits: under capacity")
        h.pipeline.drain(true)
        var sizes: [Int] = []
        for _ in 0..<3 {
            h.pipeline.accept((0..<40).map { _ in h.acceptedAlert(to: token) })
            sizes.append(h.pipeline.queuedDeliveries)
        }
        // 140 waiting, past the mark of 10: 80 delivered. Then 100: a turn ends with what the
        // deliverer took at its start (60), so 40 wait for the next read, which takes all 80.
        #expect(sizes == [60, 40, 0])
        h.pipeline.accept((0..<5).map { _ in h.acceptedAlert(to: token) })
        #expect(h.pipeline.queuedDeliveries == 5, "under the mark, pushes wait as in a burst")
        h.pipeline.drain(false)
        h.pipeline.accept((0..<100).map { _ in h.acceptedAlert(to: token) })
        #expect(h.pipeline.queuedDeliveries == 105)
        _ = h.pipeline.deliverQueued(limit: 1_000)
        #expect(h.recorded.delivered.count == 325, "every push delivered once")
    }

    /// A sink that cannot keep up holds the queue: a draining sender no longer brings it down,
    /// but the queue still delivers at capacity, a read still settles it, and letting go lets
    /// the next sender drain it again.
    @Test func aHeldQueueIsNotDrainedButStillBoundedAndSettled() throws {
        let h = try PipelineHarness(queue: 640)
        let token = try h.token()
        h.pipeline.drain(true)
        h.pipeline.hold(true)
        #expect(h.pipeline.isHeld)
        h.pipeline.accept((0..<600).map { _ in h.acceptedAlert(to: token) })
        #expect(h.pipeline.queuedDeliveries == 600, "past the drain mark of 10, but held")
        h.pipeline.accept((0..<100).map { _ in h.acceptedAlert(to: token) })
        #expect(h.pipeline.queuedDeliveries == 600, "past capacity the sender delivers its read's worth, held or not")
        #expect(h.recorded.delivered.count == 100)

        h.pipeline.hold(false)
        h.pipeline.accept((0..<50).map { _ in h.acceptedAlert(to: token) })
        #expect(h.pipeline.queuedDeliveries == 550, "draining again: twice the read is delivered")

        h.pipeline.hold(true)
        h.simulator.settle()
        #expect(h.pipeline.queuedDeliveries == 0)
        #expect(h.recorded.delivered.count == 750, "every push delivered once")
    }

    /// The transport slows its reads only when all three hold: a long load (draining), a sink
    /// holding the queue, and more than twice the drain mark waiting. A burst, a sink that keeps
    /// up, or a short queue leave the answers at full speed.
    @Test func theQueueIsBackedUpOnlyWhenHeldDuringALongLoadWithMuchWaiting() throws {
        let h = try PipelineHarness(queue: 640)
        let token = try h.token()
        h.pipeline.hold(true)
        h.pipeline.accept((0..<21).map { _ in h.acceptedAlert(to: token) })
        #expect(!h.pipeline.isBackedUp, "a burst: the queue is there to absorb it")
        h.pipeline.drain(true)
        #expect(h.pipeline.isBackedUp, "21 waiting, past twice the drain mark of 10")
        h.pipeline.hold(false)
        #expect(!h.pipeline.isBackedUp, "the sink lets go: the senders drain the queue themselves")
        h.pipeline.hold(true)
        _ = h.pipeline.deliverQueued(limit: 1)
        #expect(h.pipeline.queuedDeliveries == 20)
        #expect(!h.pipeline.isBackedUp, "twice the drain mark is not past it")
        h.simulator.settle()
        #expect(h.recorded.delivered.count == 21, "every push delivered once")
    }

    /// While one sender delivers a batch, another past the drain mark goes on answering instead
    /// of waiting for the lock, and owes its batch; the next deliverer delivers it.
    @Test func aSenderPastTheDrainMarkGoesOnWhileAnotherDelivers() throws {
        let h = try PipelineHarness(queue: 128)
        let token = try h.token()
        let pipeline = h.pipeline
        let gate = GateSink()
        h.simulator.addSink(gate)
        pipeline.drain(true)
        pipeline.accept([h.acceptedAlert(to: token)])
        let firstDone = DispatchSemaphore(value: 0)
        Thread {
            _ = pipeline.deliverQueued(limit: 1)
            firstDone.signal()
        }.start()
        #expect(gate.entered.wait(timeout: .now() + 10) == .success, "the first deliverer holds its batch open")

        let pushes = (1...10).map { h.acceptedAlert(to: token, number: UInt64($0)) }
        let returned = DispatchSemaphore(value: 0)
        Thread {
            pipeline.accept(pushes)
            returned.signal()
        }.start()
        let wentOn = returned.wait(timeout: .now() + 5) == .success
        #expect(wentOn, "the second sender did not wait for the first one's batch")
        #expect(pipeline.queuedDeliveries == 10)
        gate.release.signal()
        #expect(firstDone.wait(timeout: .now() + 10) == .success)
        if !wentOn { _ = returned.wait(timeout: .now() + 10) }

        // The second sender's batch is owed: the next deliverer delivers it with its own.
        #expect(pipeline.deliverQueued(limit: 1) == 10, "one asked for, nine owed")
        #expect(pipeline.queuedDeliveries == 0)
        #expect(h.recorded.delivered.count == 11)
    }

    /// A worker's turn publishes what its pushes observed in one call, in sequence order, as one
    /// batch (its sessions append to one array); the same as one call per push would.
    @Test func aTurnPublishesItsPushesObservationsAtOnceInOrder() throws {
        let (h, sink) = try queuedAlerts(10, queue: 1_000)
        #expect(h.pipeline.deliverQueued(limit: 10) == 10)
        let calls = sink.calls
        #expect(calls.count == 1)
        #expect(calls.first?.count == 1, "one batch for the turn")
        #expect(calls.first?.first?.count == h.recorded.count, "every push's observations in it")
        #expect((calls.first?.first ?? []).delivered.count == 10, "the ten pushes'")
        let sequences = calls.flatMap { $0.flatMap { $0.map(\.sequence) } }
        #expect(sequences == sequences.sorted())
        #expect(sequences == h.recorded.map(\.sequence), "the default record(batches:) hands each batch to record(_:)")
        // Each session numbers its observations at once: no number is skipped or given twice.
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0.1 == $0.0 + 1 })
        #expect(h.simulator.lastSequence == sequences.last)
    }

    /// `count` alerts queued in one read, for a simulator whose sinks include a recording one.
    private func queuedAlerts(_ count: Int, queue: Int) throws -> (PipelineHarness, BatchRecordingSink) {
        let h = try PipelineHarness(queue: queue)
        let sink = BatchRecordingSink()
        h.simulator.addSink(sink)
        let token = try h.token()
        h.pipeline.accept((0..<count).map { _ in h.acceptedAlert(to: token) })
        return (h, sink)
    }

    /// A settle after a long burst publishes as it goes, in runs of about `ObservationRun.limit`
    /// observations, rather than holding every observation until the end.
    @Test func aLongSettlePublishesInBoundedRuns() throws {
        let (h, sink) = try queuedAlerts(1_000, queue: 10_000)
        h.simulator.settle()
        let calls = sink.calls
        let observations = calls.map { $0.reduce(0) { $0 + $1.count } }
        #expect(calls.count > 1)
        #expect(observations.dropLast().allSatisfy { $0 >= ObservationRun.limit && $0 < ObservationRun.limit + 16 })
        #expect(observations.reduce(0, +) == h.recorded.count)
    }

    @Test func theAnswersOfOneReadAreHandedOverAtOnce() throws {
        let h = try PipelineHarness(queue: 10)
        let token = try h.token()
        h.pipeline.accept((0..<4).map { _ in h.acceptedAlert(to: token) })
        #expect(h.wakes == 1, "one hand-over, one wake-up")
        #expect(h.pipeline.queuedDeliveries == 4)
        // A batch that overfills the queue is delivered by its sender, whatever its size.
        h.pipeline.accept((0..<100).map { _ in h.acceptedAlert(to: token) })
        #expect(h.pipeline.queuedDeliveries <= 10)
        _ = h.pipeline.deliverQueued(limit: 1000)
        #expect(h.recorded.delivered.count == 104, "every push delivered once")
    }

    /// Reads are queued as the arrays they came in; a worker's turn may end inside one.
    @Test func pushesComeOutInTheOrderTheyWereAcceptedWhateverTheWorkersTurns() throws {
        let h = try PipelineHarness(queue: 100)
        let token = try h.token()
        var number: UInt64 = 0
        let reads = [3, 1, 4, 2].map { size in
            (0..<size).map { _ in
                number += 1
                return h.acceptedAlert(to: token, number: number)
            }
        }
        for read in reads { h.pipeline.accept(read) }
        #expect(h.pipeline.queuedDeliveries == 10)
        var turns: [Int] = []
        while case let delivered = h.pipeline.deliverQueued(limit: 3), delivered > 0 { turns.append(delivered) }
        #expect(turns == [3, 3, 3, 1])
        #expect(h.pipeline.queuedDeliveries == 0)
        #expect(h.recorded.delivered.map(\.notificationID) == reads.flatMap { $0.map(\.apnsID) })
    }

    @Test func aPushIsObservedAtTheTimeItWasAcceptedNotWhenDelivered() throws {
        let h = try PipelineHarness(queue: 100)
        let accepted = h.now
        try h.alert()
        h.clock.advance(milliseconds: Fixture.hour)
        let observed = h.all
        #expect(!observed.isEmpty)
        #expect(observed.allSatisfy { $0.time == accepted })
    }

    @Test func aTickWaitsBehindThePushesAcceptedBeforeIt() throws {
        let h = try PipelineHarness(queue: 100)
        _ = try h.simulator.scheduleLocal(
            LocalNotification(identifier: "soon", content: NotificationContent(body: "Time to go home"), trigger: .timeInterval(seconds: 30, repeats: false)),
            app: Fixture.bundleID, on: h.deviceID
        )
        let pushID = try h.alert()
        h.clock.advance(milliseconds: Fixture.minute)
        h.pipeline.runDueEvents()
        h.pipeline.runDueEvents()
        #expect(h.pipeline.totalQueuedDeliveries == 2, "the push and one tick: ticks merge")
        #expect(h.pipeline.queuedDeliveries == 1, "a tick is no push")
        #expect(h.recorded.isEmpty)

        let delivered = h.all.delivered
        #expect(delivered.map(\.notificationID) == [pushID, "soon"])
    }

    @Test func advancingTheClockFirstDeliversWhatWasAccepted() throws {
        let h = try PipelineHarness(queue: 100)
        try h.silent()
        try h.simulator.advanceClock(milliseconds: 2 * Fixture.hour)
        #expect(h.pipeline.queuedDeliveries == 0)
        #expect(h.recorded.delivered.count == 1)
        #expect(h.recorded.delivered.first?.time == Fixture.start)
    }
}

/// Keeps each `record(batches:)` call as it came.
private final class BatchRecordingSink: ObservationSink, @unchecked Sendable {
    private let lock = NSLock()
    private var received: [[[Observation]]] = []

    var calls: [[[Observation]]] { lock.withLock { received } }

    func record(_ observations: [Observation]) {
        record(batches: [observations])
    }

    func record(batches: [[Observation]]) {
        lock.withLock { received.append(batches) }
    }
}

/// Holds its first `record(batches:)` until released: the deliverer that publishes it keeps its
/// batch, and the queue's delivery lock, meanwhile.
private final class GateSink: ObservationSink, @unchecked Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var isFirst = true

    func record(_ observations: [Observation]) {
        record(batches: [observations])
    }

    func record(batches: [[Observation]]) {
        let first = lock.withLock {
            defer { isFirst = false }
            return isFirst
        }
        guard first else { return }
        entered.signal()
        release.wait()
    }
}
