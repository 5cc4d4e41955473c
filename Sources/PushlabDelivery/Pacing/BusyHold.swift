/// When background work (the simulator's delivery worker, the store's writer) waits so that the
/// CPU goes to answering: while items arrive faster than `busyRate` a second (a load test), as
/// APNs answers before any phone has anything. The work resumes when the intake drops, when
/// what waits reaches the caller's mark (`filling`), or once a busy spell has been held for
/// `longest` (then not again until that spell ends, so a long load still sees the work catch up).
///
/// Pure: the caller passes the time, everything that ever arrived, and whether its mark is reached.
public struct BusyHold: Sendable {
    public var busyRate: Int
    public var longest: Duration
    /// How often the intake is measured; between looks the last decision stands.
    public var lookInterval: Duration

    private var lastLook: ContinuousClock.Instant?
    private var arrivedAtLastLook: Int64 = 0
    private var holdingSince: ContinuousClock.Instant?
    /// The current busy spell was held for `longest` already.
    private var spellHeldLongEnough = false
    private var holding = false
    /// When the intake last rose past `busyRate` and has stayed there since (quiet looks
    /// shorter than `longLoadGap` apart do not end it).
    private var busySince: ContinuousClock.Instant?
    private var quietSince: ContinuousClock.Instant?
    /// The last look found the intake past `busyRate`.
    public private(set) var isBusy = false
    /// How long the intake must stay low before a long load counts as over: the work itself can
    /// stall the intake for a moment (the senders waiting for a deliverer's lock).
    public var longLoadGap: Duration = .milliseconds(500)

    /// With `start`, the first look measures the intake since then (nothing had arrived);
    /// without, the first look only starts measuring.
    public init(busyRate: Int = 10_000, longest: Duration = .seconds(10), lookInterval: Duration = .milliseconds(50), start: ContinuousClock.Instant? = nil) {
        self.busyRate = busyRate
        self.longest = longest
        self.lookInterval = lookInterval
        self.lastLook = start
    }

    /// Whether to wait now. `arrived`: every item ever handed over; `filling`: so much is waiting
    /// that the work must start (half of the store's backlog limit, 7/8 of the delivery queue).
    public mutating func shouldWait(arrived: Int64, filling: Bool, now: ContinuousClock.Instant) -> Bool {
        guard let previous = lastLook else {
            lastLook = now
            arrivedAtLastLook = arrived
            return false
        }
        let elapsed = now - previous
        guard elapsed > .zero, elapsed >= lookInterval else { return holding }
        let intake = Double(arrived - arrivedAtLastLook)
        lastLook = now
        arrivedAtLastLook = arrived
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        guard intake >= Double(busyRate) * seconds else {
            isBusy = false
            let quiet = quietSince ?? previous
            quietSince = quiet
            if now - quiet >= longLoadGap { busySince = nil }
            spellHeldLongEnough = false
            holdingSince = nil
            holding = false
            return false
        }
        isBusy = true
        quietSince = nil
        if busySince == nil { busySince = previous }
        let since = holdingSince ?? now
        if now - since >= longest { spellHeldLongEnough = true }
        holding = !spellHeldLongEnough && !filling
        holdingSince = holding ? since : nil
        return holding
    }

    /// The intake has stayed past `busyRate` for `longest` or more, as of the last look (and
    /// for `longLoadGap` after it drops): a long load rather than a burst, which the work must
    /// keep pace with instead of holding off, whether or not it was held (a full queue stops the
    /// hold before `longest`).
    public var isLongLoad: Bool {
        guard let busySince, let lastLook else { return false }
        return lastLook - busySince >= longest
    }
}
