import Foundation
import PushlabCore
import PushlabSimulator

/// The test server's clock: manual, so it stands still between a test's steps and "two hours
/// later" takes no time. Moving it goes through the simulator, which runs everything that falls
/// due on the way (local notifications, held background pushes released, stored pushes
/// expiring), each at its own time. APNs reads the same clock for provider-token age, rate
/// limits and idle connections.
public struct PushlabTestClock: Sendable {
    let simulator: DeviceSimulator

    /// Now, in epoch milliseconds (the unit of every time in Pushlab's observations).
    public var now: EpochMilliseconds { simulator.clock.now() }

    public var date: Date { Date(timeIntervalSince1970: Double(now) / 1000) }

    /// Moves time forward; a negative duration is refused.
    public func advance(by duration: Duration) throws(SimulatorError) {
        try simulator.advanceClock(milliseconds: Self.milliseconds(duration))
    }

    /// Sets the time, also backwards (what was due before is not replayed).
    public func set(to date: Date) throws(SimulatorError) {
        try simulator.setClock(EpochMilliseconds((date.timeIntervalSince1970 * 1000).rounded()))
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
