/// When the store's writer takes its next batch, so that every request recorded is committed
/// within `window` of being recorded: the most a `kill -9` can lose of acknowledged pushes.
///
/// A record waits for at most two commits: recorded just after a take, it misses that batch and
/// goes in the next. So the writer sizes each batch to commit within `commitBudget`, and takes
/// the next one early enough that the commit it expects (as long as the recent ones, give or
/// take) still ends within the window. Between those bounds it wakes every `interval`, as it
/// always has.
///
/// Pure: the caller passes the times.
public struct CommitSchedule: Sendable, Equatable {
    public let window: Duration
    public let interval: Duration
    private var lastTake: ContinuousClock.Instant?
    /// How long the next commit may take: the longest of the recent ones, fading by a quarter
    /// with each commit, so that one slow commit (a busy CPU) brings the next takes forward for
    /// a while.
    public private(set) var expectedCommit = Duration.zero

    /// Two fifths of the window (100 ms of 250): a commit under way and the next one together
    /// stay within it, with a fifth to spare for the wake-up and the thread's turn on a busy CPU.
    public var commitBudget: Duration { window * 2 / 5 }

    public init(window: Duration = .milliseconds(250), interval: Duration = .milliseconds(100)) {
        self.window = window
        self.interval = interval
    }

    /// The writer took a batch: every record from before `instant` is in it.
    public mutating func took(at instant: ContinuousClock.Instant) {
        lastTake = instant
    }

    /// A commit of requests took `duration`, from the take to its end.
    public mutating func committed(taking duration: Duration) {
        expectedCommit = max(duration, expectedCommit * 3 / 4)
    }

    /// When to take the next batch, the last commit having ended at `now`. With requests
    /// waiting (recorded since the last take): `interval` later, or earlier if they would
    /// otherwise miss the window; a time in the past means at once. With none: `interval` later
    /// (see `requestsMustWake`).
    public func nextTake(after now: ContinuousClock.Instant, requestsWaiting: Bool) -> ContinuousClock.Instant {
        guard requestsWaiting else { return now + interval }
        // A fifth of the window at least, for the wake-up; a quarter more than the recent commits.
        let reserve = max(window / 5, expectedCommit * 5 / 4)
        // Before the first take, as if one were made now.
        return min(now + interval, (lastTake ?? now) + window - reserve)
    }

    /// A request recorded while the writer sleeps a whole `interval` would wait longer than the
    /// window allows: then the first one must wake the writer.
    public var requestsMustWake: Bool { interval > window - commitBudget }
}
