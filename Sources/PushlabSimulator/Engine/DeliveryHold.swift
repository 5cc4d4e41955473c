/// When a queued simulator's worker waits instead of delivering: while pushes are accepted
/// faster than `busyRate` a second (a load test), the phones wait and the CPU goes to answering,
/// as APNs answers before any phone has anything. Delivery resumes when the intake drops, when
/// half the queue's capacity is waiting, or once a busy spell has been held for `longest` (then
/// not again until that spell ends, so a long load still sees its phones catch up). Readers never
/// wait for it: they deliver what they need themselves (`DeviceSimulator.settle()`).
///
/// Pure: the caller passes the time and the queue's counts.
public struct DeliveryHold: Sendable {
    public var busyRate: Int
    public var longest: Duration
    /// How often the intake is measured; between looks the last decision stands.
    public var lookInterval: Duration

    private var lastLook: ContinuousClock.Instant?
    private var appendedAtLastLook: Int64 = 0
    private var holdingSince: ContinuousClock.Instant?
    /// The current busy spell was held for `longest` already.
    private var spellExhausted = false
    private var holding = false

    public init(busyRate: Int = 10_000, longest: Duration = .seconds(10), lookInterval: Duration = .milliseconds(50)) {
        self.busyRate = busyRate
        self.longest = longest
        self.lookInterval = lookInterval
    }

    /// Whether to wait now. `appended`: everything ever handed to the queue; `queued`: what waits.
    public mutating func shouldWait(appended: Int64, queued: Int, capacity: Int, now: ContinuousClock.Instant) -> Bool {
        guard let previous = lastLook else {
            lastLook = now
            appendedAtLastLook = appended
            return false
        }
        let elapsed = now - previous
        guard elapsed >= lookInterval else { return holding }
        let intake = Double(appended - appendedAtLastLook)
        lastLook = now
        appendedAtLastLook = appended
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let busy = intake >= Double(busyRate) * seconds
        guard busy else {
            spellExhausted = false
            holdingSince = nil
            holding = false
            return false
        }
        let since = holdingSince ?? now
        if spellExhausted || queued >= capacity / 2 || now - since >= longest {
            spellExhausted = spellExhausted || now - since >= longest
            holdingSince = nil
            holding = false
        } else {
            holdingSince = since
            holding = true
        }
        return holding
    }
}
