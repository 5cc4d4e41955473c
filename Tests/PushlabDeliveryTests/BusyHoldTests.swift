import PushlabDelivery
import Testing

/// Background work (the delivery worker, the store's writer) waits during a burst, and only then.
@Suite struct BusyHoldTests {
    private let start = ContinuousClock.now
    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    /// A look every 50 ms; `perLook` items arrive between looks (200 per 50 ms is 4,000 a second).
    private func decisions(_ hold: inout BusyHold, perLook: [Int], filling: Bool = false) -> [Bool] {
        var arrived: Int64 = 0
        _ = hold.shouldWait(arrived: arrived, filling: filling, now: at(0))
        return perLook.enumerated().map { index, count in
            arrived += Int64(count)
            return hold.shouldWait(arrived: arrived, filling: filling, now: at(50 * (index + 1)))
        }
    }

    @Test func aQuietServerIsServedAtOnce() {
        var hold = BusyHold(busyRate: 10_000)
        let waits = decisions(&hold, perLook: [0, 1, 200, 499])
        #expect(waits == [false, false, false, false])
    }

    @Test func aBurstIsHeldAndTheWorkResumesWhenItEnds() {
        var hold = BusyHold(busyRate: 10_000)
        // 500 per 50 ms is exactly the busy rate.
        let waits = decisions(&hold, perLook: [100, 500, 5_000, 5_000, 10, 0])
        #expect(waits == [false, true, true, true, false, false])
    }

    @Test func betweenLooksTheLastDecisionStands() {
        var hold = BusyHold(busyRate: 10_000)
        _ = hold.shouldWait(arrived: 0, filling: false, now: at(0))
        let busy = hold.shouldWait(arrived: 5_000, filling: false, now: at(50))
        // 10 ms later nothing more came, but it is not time to look again.
        let soonAfter = hold.shouldWait(arrived: 5_000, filling: false, now: at(60))
        let nextLook = hold.shouldWait(arrived: 5_000, filling: false, now: at(110))
        #expect(busy && soonAfter && !nextLook)
    }

    @Test func reachingTheCallersMarkEndsTheHold() {
        var hold = BusyHold(busyRate: 10_000)
        let underTheMark = decisions(&hold, perLook: [5_000, 5_000])
        var full = BusyHold(busyRate: 10_000)
        let atTheMark = decisions(&full, perLook: [5_000, 5_000], filling: true)
        #expect(underTheMark == [true, true])
        #expect(atTheMark == [false, false])
    }

    /// A load longer than `longest` sees the work catch up: the spell is held once, then not
    /// again until the intake drops.
    @Test func aLongBurstIsHeldOnlyForTheLongestHold() {
        var hold = BusyHold(busyRate: 10_000, longest: .milliseconds(120))
        let busy = Array(repeating: 5_000, count: 6)
        let waits = decisions(&hold, perLook: busy + [0] + busy)
        #expect(waits == [
            true, true, true, false, false, false,  // held from 50 ms; at 200 ms, 150 ms have passed
            false,  // the spell ends
            true, true, true, false, false, false,  // a new spell is held again
        ])
    }

    @Test func aStartMakesTheFirstLookCount() {
        var measuring = BusyHold(busyRate: 10, lookInterval: .zero, start: start)
        var starting = BusyHold(busyRate: 10, lookInterval: .zero)
        let measured = measuring.shouldWait(arrived: 20, filling: false, now: at(1_000))
        let started = starting.shouldWait(arrived: 20, filling: false, now: at(1_000))
        #expect(measured && !started)
    }

    /// A load that outlasts `longest` is a long load, whether it was held (no mark) or the
    /// caller's mark stopped the hold early (a full queue).
    @Test func aLoadOutlastingTheLongestHoldIsALongLoadHeldOrNot() {
        for filling in [false, true] {
            var hold = BusyHold(busyRate: 10_000, longest: .milliseconds(120))
            var arrived: Int64 = 0
            _ = hold.shouldWait(arrived: arrived, filling: filling, now: at(0))
            var longLoad: [Bool] = []
            for look in 1...4 {
                arrived += 5_000
                _ = hold.shouldWait(arrived: arrived, filling: filling, now: at(50 * look))
                longLoad.append(hold.isLongLoad)
            }
            // Busy since 0 ms: at 150 ms, 150 ms have passed.
            #expect(longLoad == [false, false, true, true], "filling: \(filling)")
        }
    }

    /// The work itself can stall the intake for a look or two; a long load ends only once the
    /// intake has stayed low for `longLoadGap`.
    @Test func aLongLoadOutlastsAShortStallButNotTheLoadsEnd() {
        var hold = BusyHold(busyRate: 10_000, longest: .milliseconds(100))
        hold.longLoadGap = .milliseconds(150)
        var arrived: Int64 = 0
        var now = 0
        func look(_ count: Int) -> (longLoad: Bool, busy: Bool) {
            arrived += Int64(count)
            now += 50
            _ = hold.shouldWait(arrived: arrived, filling: false, now: at(now))
            return (hold.isLongLoad, hold.isBusy)
        }
        _ = hold.shouldWait(arrived: 0, filling: false, now: at(0))
        for _ in 0..<3 { _ = look(5_000) }
        #expect(hold.isLongLoad)
        let stall = look(0)
        #expect(stall.longLoad && !stall.busy, "one quiet look is a stall, not the end")
        #expect(look(5_000).longLoad)
        let ending = (0..<4).map { _ in look(0).longLoad }
        // Quiet from 200 ms: at 350 ms, 150 ms have passed.
        #expect(ending == [true, true, false, false])
        #expect(!look(5_000).longLoad, "a new spell starts short")
    }
}
