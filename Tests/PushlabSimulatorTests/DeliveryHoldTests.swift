import PushlabSimulator
import Testing

/// The worker of a queued simulator waits during a burst of pushes, and only then.
@Suite struct DeliveryHoldTests {
    private let start = ContinuousClock.now
    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    /// A look every 50 ms; `perLook` pushes arrive between looks (200 per 50 ms is 4,000 a second).
    private func decisions(_ hold: inout DeliveryHold, perLook: [Int], queued: Int = 0, capacity: Int = 1_000_000) -> [Bool] {
        var appended: Int64 = 0
        _ = hold.shouldWait(appended: appended, queued: queued, capacity: capacity, now: at(0))
        return perLook.enumerated().map { index, count in
            appended += Int64(count)
            return hold.shouldWait(appended: appended, queued: queued, capacity: capacity, now: at(50 * (index + 1)))
        }
    }

    @Test func aQuietServerDeliversAtOnce() {
        var hold = DeliveryHold(busyRate: 10_000)
        let got1 = decisions(&hold, perLook: [0, 1, 200, 499])
        #expect(got1 == [false, false, false, false])
    }

    @Test func aBurstIsHeldAndDeliveryResumesWhenItEnds() {
        var hold = DeliveryHold(busyRate: 10_000)
        // 500 per 50 ms is exactly the busy rate.
        let got2 = decisions(&hold, perLook: [100, 500, 5_000, 5_000, 10, 0])
        #expect(got2 == [false, true, true, true, false, false])
    }

    @Test func betweenLooksTheLastDecisionStands() {
        var hold = DeliveryHold(busyRate: 10_000)
        _ = hold.shouldWait(appended: 0, queued: 0, capacity: 100, now: at(0))
        let waits3 = hold.shouldWait(appended: 5_000, queued: 0, capacity: 100, now: at(50))
        #expect(waits3)
        // 10 ms later nothing more came, but it is not time to look again.
        let waits4 = hold.shouldWait(appended: 5_000, queued: 0, capacity: 100, now: at(60))
        #expect(waits4)
        let waits5 = hold.shouldWait(appended: 5_000, queued: 0, capacity: 100, now: at(110))
        #expect(!waits5)
    }

    @Test func halfAFullQueueIsDeliveredEvenInABurst() {
        var hold = DeliveryHold(busyRate: 10_000)
        let got6 = decisions(&hold, perLook: [5_000, 5_000], queued: 499, capacity: 1_000)
        #expect(got6 == [true, true])
        var full = DeliveryHold(busyRate: 10_000)
        let got7 = decisions(&full, perLook: [5_000, 5_000], queued: 500, capacity: 1_000)
        #expect(got7 == [false, false])
    }

    /// A load longer than `longest` sees its phones catch up: the spell is held once, then not
    /// again until the intake drops.
    @Test func aLongBurstIsHeldOnlyForTheLongestHold() {
        var hold = DeliveryHold(busyRate: 10_000, longest: .milliseconds(120))
        let busy = Array(repeating: 5_000, count: 6)
        let got8 = decisions(&hold, perLook: busy + [0] + busy)
        #expect(got8 == [
            true, true, true, false, false, false,  // held from 50 ms; at 200 ms, 150 ms have passed
            false,  // the spell ends
            true, true, true, false, false, false,  // a new spell is held again
        ])
    }
}
