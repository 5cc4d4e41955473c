import PushlabDelivery
import Testing

/// The store's writer takes a batch every interval, or sooner when a record waiting since the
/// last take would otherwise be committed later than the window allows.
@Suite struct CommitScheduleTests {
    private let start = ContinuousClock.now
    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test func theBudgetIsTwoFifthsOfTheWindow() {
        #expect(CommitSchedule(window: .milliseconds(250)).commitBudget == .milliseconds(100))
        #expect(CommitSchedule(window: .seconds(1)).commitBudget == .milliseconds(400))
    }

    @Test func quickCommitsAreFollowedAfterTheInterval() {
        var schedule = CommitSchedule(window: .milliseconds(250), interval: .milliseconds(100))
        #expect(schedule.nextTake(after: at(0), requestsWaiting: true) == at(100), "before any take, the interval alone")
        schedule.took(at: at(100))
        #expect(schedule.nextTake(after: at(110), requestsWaiting: true) == at(210))
    }

    /// A commit that ran long is expected again: the next take comes early enough for a commit
    /// a quarter longer to end within the window.
    @Test func aLongCommitBringsTheNextTakeForward() {
        var schedule = CommitSchedule(window: .milliseconds(250), interval: .milliseconds(100))
        schedule.took(at: at(0))
        #expect(schedule.nextTake(after: at(40), requestsWaiting: true) == at(140), "quick commits: the interval")
        schedule.committed(taking: .milliseconds(120))
        #expect(schedule.expectedCommit == .milliseconds(120))
        #expect(schedule.nextTake(after: at(120), requestsWaiting: true) == at(100), "already late: at once")
    }

    @Test func theExpectedCommitFadesAQuarterAtATime() {
        var schedule = CommitSchedule()
        schedule.committed(taking: .milliseconds(100))
        schedule.committed(taking: .milliseconds(10))
        #expect(schedule.expectedCommit == .milliseconds(75))
        schedule.committed(taking: .milliseconds(90))
        #expect(schedule.expectedCommit == .milliseconds(90))
    }

    /// With nothing waiting the writer sleeps its interval; a request that comes meanwhile waits
    /// for the end of it, unless the interval is longer than the window allows, when it must
    /// wake the writer.
    @Test func withNothingWaitingTheWriterSleepsItsInterval() {
        var schedule = CommitSchedule(window: .milliseconds(250), interval: .milliseconds(100))
        schedule.took(at: at(0))
        #expect(schedule.nextTake(after: at(120), requestsWaiting: false) == at(220))
        #expect(!schedule.requestsMustWake)
        #expect(CommitSchedule(window: .milliseconds(250), interval: .milliseconds(151)).requestsMustWake)
        #expect(CommitSchedule(window: .milliseconds(50), interval: .milliseconds(100)).requestsMustWake)
    }

    /// A record waits for the commit under way, then for the next take and that commit.
    /// Commits of up to half the window keep it.
    @Test(arguments: [0, 10, 50, 100, 120, 125])
    func aRecordNeverWaitsLongerThanTheWindow(commitMilliseconds: Int) {
        var schedule = CommitSchedule(window: .milliseconds(250), interval: .milliseconds(100))
        var take = at(0)
        var longestWait = Duration.zero
        for _ in 0..<20 {
            schedule.took(at: take)
            let committed = take + .milliseconds(commitMilliseconds)
            schedule.committed(taking: .milliseconds(commitMilliseconds))
            let next = max(committed, schedule.nextTake(after: committed, requestsWaiting: true))
            // The worst record came right after `take`; it is committed with the next batch.
            longestWait = max(longestWait, next + .milliseconds(commitMilliseconds) - take)
            take = next
        }
        #expect(longestWait <= .milliseconds(250))
    }
}
