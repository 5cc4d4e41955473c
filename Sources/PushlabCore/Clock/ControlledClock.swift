import Foundation
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

    private struct State {
        var mode: Mode
        var manualTime: EpochMilliseconds
    }

    private let state: Mutex<State>
    private let system = SystemClock()

    /// Real time, or manual starting at `start`.
    public init(manualStart start: EpochMilliseconds? = nil) {
        state = Mutex(State(mode: start == nil ? .real : .manual, manualTime: start ?? 0))
    }

    public var mode: Mode { state.withLock { $0.mode } }

    public func now() -> EpochMilliseconds {
        state.withLock { $0.mode == .manual ? $0.manualTime : system.now() }
    }

    /// Switches mode; going manual freezes the clock at the current time.
    public func setMode(_ mode: Mode) {
        let real = system.now()
        state.withLock { state in
            if mode == .manual, state.mode == .real { state.manualTime = real }
            state.mode = mode
        }
    }

    /// Sets the time (manual from now on).
    public func set(_ time: EpochMilliseconds) {
        state.withLock { state in
            state.mode = .manual
            state.manualTime = time
        }
    }

    /// Moves the time forward (manual from now on, starting from the current time).
    public func advance(milliseconds: Int64) {
        let real = system.now()
        state.withLock { state in
            if state.mode == .real { state.manualTime = real }
            state.mode = .manual
            state.manualTime += milliseconds
        }
    }
}
