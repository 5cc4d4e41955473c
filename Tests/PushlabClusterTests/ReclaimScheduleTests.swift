@testable import PushlabCluster
import Testing

/// A node claims abandoned pushes of the partitions it gained lately, at every beat, and of
/// every partition once a sweep; not of every partition at every beat.
struct ReclaimScheduleTests {
    private let start = ContinuousClock.now
    private let lease = Duration.seconds(3)

    @Test func nothingIsClaimedBetweenSweepsWithoutAGain() {
        var schedule = ReclaimSchedule(lease: lease, now: start)
        for beat in 1...29 {
            #expect(schedule.due(owned: [1, 2, 3], at: start + .seconds(beat)).isEmpty, "beat \(beat)")
        }
    }

    @Test func aGainedPartitionIsClaimedForTwiceTheLease() {
        var schedule = ReclaimSchedule(lease: lease, now: start)
        schedule.gain([7, 2], at: start + .seconds(1))
        #expect(schedule.due(owned: [1, 2, 7], at: start + .seconds(1)) == [2, 7])
        #expect(schedule.due(owned: [1, 2, 7], at: start + .seconds(7)) == [2, 7], "six seconds after the gain: still in the window")
        #expect(schedule.due(owned: [1, 2, 7], at: start + .milliseconds(7_001)).isEmpty, "past the window")
    }

    @Test func aPartitionLostInItsWindowIsNotClaimed() {
        var schedule = ReclaimSchedule(lease: lease, now: start)
        schedule.gain([4, 5], at: start)
        #expect(schedule.due(owned: [5], at: start + .seconds(1)) == [5])
        #expect(schedule.due(owned: [4, 5], at: start + .seconds(2)) == [5], "once lost, a partition's window is over")
    }

    @Test func everyOwnedPartitionIsSweptOnceEveryTenLeases() {
        var schedule = ReclaimSchedule(lease: lease, now: start)
        #expect(schedule.due(owned: [3, 1, 2], at: start + .milliseconds(29_999)).isEmpty)
        #expect(schedule.due(owned: [3, 1, 2], at: start + .seconds(30)) == [1, 2, 3])
        #expect(schedule.due(owned: [3, 1, 2], at: start + .seconds(31)).isEmpty, "the next sweep is ten leases later")
        #expect(schedule.due(owned: [3, 1, 2], at: start + .seconds(60)) == [1, 2, 3])
    }
}
