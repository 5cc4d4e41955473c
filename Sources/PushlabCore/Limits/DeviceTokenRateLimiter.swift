import Synchronization

/// Counts requests per device token in fixed windows, shared by every connection (reference 7.2).
/// Sharded by the token's low bits, so event loops rarely wait for each other.
public final class DeviceTokenRateLimiter: Sendable {
    struct Window {
        var start: EpochMilliseconds
        var count: Int
    }

    let limit: APNsPolicy.RateLimit
    private let shards: [LockedShard<[DeviceTokenKey: Window]>] = (0..<16).map { _ in LockedShard([:]) }

    public init(_ limit: APNsPolicy.RateLimit) {
        self.limit = limit
    }

    /// Counts one request; false when the token is over its limit in the current window.
    public func admit(_ token: DeviceTokenKey, now: EpochMilliseconds) -> Bool {
        let length = EpochMilliseconds(limit.perSeconds * 1000)
        let shard = token.shard(among: shards.count)
        let requests = limit.requests
        return shards[shard].withLock { windows in
            if windows.count > 50_000 { windows = windows.filter { now - $0.value.start < length } }
            return Self.count(in: &windows[token, default: Window(start: now, count: 0)], now: now, length: length, limit: requests)
        }
    }

    /// Counts one request in a registered token's own window (kept by the world beside the
    /// token): no lookup at all.
    func admit(_ window: RateWindow, now: EpochMilliseconds) -> Bool {
        Self.admit(window, limit: limit, now: now)
    }

    /// The same, with the limiter's `limit` read beforehand: a connection keeps that and does not
    /// touch the limiter every connection shares.
    static func admit(_ window: RateWindow, limit: APNsPolicy.RateLimit, now: EpochMilliseconds) -> Bool {
        let length = EpochMilliseconds(limit.perSeconds * 1000)
        let requests = limit.requests
        return window.state.withLock { state in
            // A token nothing was counted for yet gets its first window now.
            var current = state ?? Window(start: now, count: 0)
            defer { state = current }
            return Self.count(in: &current, now: now, length: length, limit: requests)
        }
    }

    /// One hash lookup per request: the window is updated in place.
    private static func count(in window: inout Window, now: EpochMilliseconds, length: EpochMilliseconds, limit: Int) -> Bool {
        if now - window.start >= length { window = Window(start: now, count: 0) }
        guard window.count < limit else { return false }
        window.count += 1
        return true
    }
}

/// One registered token's rate-limit window, counted by `DeviceTokenRateLimiter`.
final class RateWindow: Sendable {
    let state = Mutex<DeviceTokenRateLimiter.Window?>(nil)
}
