import Synchronization

/// A clock that can be set or moved forward: `ManualClock`, and `ControlledClock` in real mode
/// until someone sets it.
public protocol SettableClock: PushlabClock {
    func set(_ time: EpochMilliseconds)
    func advance(milliseconds: Int64)
}

extension ManualClock: SettableClock {}

/// What `pushlab serve` runs on: real time until it is set or advanced (then manual, frozen
/// between changes), and back to real time on request. One clock for the APNs rules (token
/// expiry, rate limits) and the simulator (budgets, expiry, local triggers).
public final class ControlledClock: SettableClock {
    public enum Mode: String, Sendable, Codable {
        case real, manual
    }

    /// The manual time, or `realTime` in real mode: one word, so that reading the clock (every
    /// request on every event loop) is a load, not a lock the loops would pass between them.
    private let manualTime: Atomic<EpochMilliseconds>
    private static let realTime = EpochMilliseconds.min
    private let system = SystemClock()

    /// Real time, or manual starting at `start`.
    public init(manualStart start: EpochMilliseconds? = nil) {
        manualTime = Atomic(start ?? Self.realTime)
    }

    public var mode: Mode { manualTime.load(ordering: .acquiring) == Self.realTime ? .real : .manual }

    public func now() -> EpochMilliseconds {
        let manual = manualTime.load(ordering: .acquiring)
        return manual == Self.realTime ? system.now() : manual
    }

    /// Switches mode; going manual freezes the clock at the current time.
    public func setMode(_ mode: Mode) {
        switch mode {
        case .real: manualTime.store(Self.realTime, ordering: .releasing)
        case .manual: _ = manualTime.compareExchange(expected: Self.realTime, desired: system.now(), ordering: .acquiringAndReleasing)
        }
    }

    /// Sets the time (manual from now on). `EpochMilliseconds.min`, 292 million years before
    /// 1970, stands for real time and so cannot be set.
    public func set(_ time: EpochMilliseconds) {
        manualTime.store(time == Self.realTime ? time + 1 : time, ordering: .releasing)
    }

    /// Moves the time forward (manual from now on, starting from the current time).
    public func advance(milliseconds: Int64) {
        var current = manualTime.load(ordering: .acquiring)
        while true {
            let base = current == Self.realTime ? system.now() : current
            let (exchanged, original) = manualTime.compareExchange(
                expected: current, desired: base + milliseconds, ordering: .acquiringAndReleasing
            )
            if exchanged { return }
            current = original
        }
    }
}
