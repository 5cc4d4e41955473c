import PushlabDelivery
import Testing

/// The delivery worker's states, event by event: one look every 50 ms, with what arrived since.
@Suite struct DeliveryPacingStateMachineTests {
    private let start = ContinuousClock.now
    private let pause = DeliveryPacingStateMachine.Action.pause(.milliseconds(50))

    private struct Step {
        var arrived: Int = 0
        var queued: Int = 0
        var storeHolds = false
    }

    /// Runs one look per step, 50 ms apart, after a first look at 0 with nothing arrived;
    /// returns each look's state and decision.
    private func run(
        _ machine: inout DeliveryPacingStateMachine, _ steps: [Step]
    ) -> [(DeliveryPacingStateMachine.State, DeliveryPacingStateMachine.Decision)] {
        _ = machine.looked(.init(arrived: 0, queued: 0, storeHolds: false, now: start))
        var arrived: Int64 = 0
        return steps.enumerated().map { index, step in
            arrived += Int64(step.arrived)
            let decision = machine.looked(.init(
                arrived: arrived, queued: step.queued, storeHolds: step.storeHolds, now: start + .milliseconds(50 * (index + 1))
            ))
            return (machine.state, decision)
        }
    }

    /// 5,000 per 50 ms: 100,000 a second, ten times the busy rate.
    private let busy = Step(arrived: 5_000, queued: 5_000)

    @Test func aQuietServerDeliversAsPushesCome() {
        var machine = DeliveryPacingStateMachine(capacity: 65_536)
        let looks = run(&machine, [Step(arrived: 10, queued: 10), Step(arrived: 100, queued: 3), Step()])
        #expect(looks.map(\.0) == [.idle, .idle, .idle])
        #expect(looks.allSatisfy { $0.1 == .init(action: .deliver, sendersDrain: false) })
    }

    @Test func aBurstPausesTheWorkerUntilTheIntakeDrops() {
        var machine = DeliveryPacingStateMachine(capacity: 65_536)
        let looks = run(&machine, [busy, busy, Step(arrived: 0, queued: 10_000)])
        #expect(looks.map(\.0) == [.burst, .burst, .idle])
        #expect(looks.map(\.1.action) == [pause, pause, .deliver])
        #expect(looks.allSatisfy { !$0.1.sendersDrain })
    }

    @Test func aQueueNearCapacityIsDeliveredEvenInABurst() {
        var machine = DeliveryPacingStateMachine(capacity: 8_000)
        // 7/8 of 8,000 is 7,000.
        let looks = run(&machine, [Step(arrived: 5_000, queued: 6_999), Step(arrived: 5_000, queued: 7_000)])
        #expect(looks.map(\.0) == [.burst, .idle])
        #expect(looks.map(\.1.action) == [pause, .deliver])
    }

    @Test func aLoadLongerThanTheLongestHoldHasTheSendersDrain() {
        var machine = DeliveryPacingStateMachine(capacity: 65_536, hold: BusyHold(longest: .milliseconds(120)))
        let looks = run(&machine, Array(repeating: busy, count: 4))
        // Busy since 0: a long load from the look at 150 ms.
        #expect(looks.map(\.0) == [.burst, .burst, .longLoad, .longLoad])
        #expect(looks.map(\.1.sendersDrain) == [false, false, true, true])
        // The worker stays out of the senders' way while they drain.
        #expect(looks.allSatisfy { $0.1.action == pause })
    }

    @Test func aLongLoadEndsOnlyAfterItsGap() {
        var machine = DeliveryPacingStateMachine(capacity: 65_536, hold: BusyHold(longest: .milliseconds(120)))
        var steps = Array(repeating: busy, count: 4)
        // Quiet from 200 ms: the long load lasts until 500 ms of quiet (`longLoadGap`).
        steps += Array(repeating: Step(queued: 100), count: 12)
        let looks = run(&machine, steps)
        let quiet = looks.dropFirst(4)
        #expect(quiet.prefix(9).allSatisfy { $0.0 == .longLoad && $0.1.sendersDrain })
        #expect(quiet.suffix(3).allSatisfy { $0.0 == .idle && $0.1 == .init(action: .deliver, sendersDrain: false) })
    }

    @Test func aStoreThatHoldsPausesTheWorkerInAnyState() {
        var machine = DeliveryPacingStateMachine(capacity: 65_536, hold: BusyHold(longest: .milliseconds(120)))
        let held = Step(arrived: 10, queued: 10, storeHolds: true)
        var longHeld = busy
        longHeld.storeHolds = true
        let looks = run(&machine, [held, busy, longHeld, longHeld, longHeld, Step(arrived: 10, queued: 10)])
        #expect(looks.map(\.0) == [.heldByStore, .burst, .heldByStore, .heldByStore, .heldByStore, .longLoad])
        // A long load under a holding store still has the senders drain (they stop at the mark
        // the store's hold sets).
        #expect(looks.map(\.1.sendersDrain) == [false, false, false, true, true, true])
        #expect(looks.prefix(5).allSatisfy { $0.1.action == pause })
    }

    @Test func theFirstLookOnlyStartsMeasuring() {
        var machine = DeliveryPacingStateMachine(capacity: 65_536)
        let first = machine.looked(.init(arrived: 1_000_000, queued: 1_000, storeHolds: false, now: start))
        #expect(machine.state == .idle)
        #expect(first == .init(action: .deliver, sendersDrain: false))
    }
}
