#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Milliseconds since 1970-01-01T00:00:00Z: the unit of every time in the core.
public typealias EpochMilliseconds = Int64

/// The time source every rule reads. Real time by default; a `ManualClock` makes
/// "advance two hours" instant and exact in tests and scenarios.
public protocol PushlabClock: Sendable {
    func now() -> EpochMilliseconds
}

public struct SystemClock: PushlabClock {
    public init() {}
    public func now() -> EpochMilliseconds {
        // Read on every request: the C clock directly, without Foundation's Date and Double.
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return EpochMilliseconds(time.tv_sec) * 1000 + EpochMilliseconds(time.tv_nsec / 1_000_000)
    }
}

public final class ManualClock: PushlabClock {
    private let current: Mutex<EpochMilliseconds>

    public init(_ start: EpochMilliseconds = 1_767_225_600_000) {  // 2026-01-01T00:00:00Z
        current = Mutex(start)
    }

    public func now() -> EpochMilliseconds { current.withLock { $0 } }

    public func set(_ time: EpochMilliseconds) { current.withLock { $0 = time } }

    public func advance(milliseconds: Int64) { current.withLock { $0 += milliseconds } }

    public func advance(seconds: Double) { advance(milliseconds: Int64((seconds * 1000).rounded())) }
}
