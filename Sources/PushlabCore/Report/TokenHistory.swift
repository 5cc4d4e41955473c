import Synchronization

/// What the report remembers of each device token across requests and providers: its recent
/// requests (for retries), its 410, its last 429. The retry table takes no lock (`RecentRequests`);
/// the 410s and 429s are kept in shards by the token's hash, each behind its own lock, and a
/// request looks there only once its shard has kept one, so a load test without them never
/// waits for another event loop.
final class TokenHistory: Sendable {
    private static let shardCount = 16
    private let shards: [LockedShard<Shard>]
    private let sent: RecentRequests
    /// The shards that have kept a 410 or a 429, one bit each.
    private let shardsInUse = Atomic<UInt32>(0)

    /// `capacity` tokens for the 410 and 429 rules, `requests` for the retry rule.
    init(remembering capacity: Int, requests: Int) {
        let perShard = max(1, capacity / Self.shardCount)
        shards = (0..<Self.shardCount).map { _ in LockedShard(Shard(capacity: perShard)) }
        sent = RecentRequests(windowMilliseconds: ProviderReportRules.retryWindowMilliseconds, slots: requests)
    }

    /// What the history knew of a request's token before it, once the request is added.
    struct Verdict {
        /// When the token was first answered 410, if it was.
        var goneAt: EpochMilliseconds?
        /// When the token was last answered 429 `TooManyRequests`, within the back-off time.
        var throttledAt: EpochMilliseconds?
        /// The same token and request within the retry window, and how it was answered.
        var earlier: RecentRequests.Earlier?
    }

    struct Shard: Sendable {
        var throttled: RecentWindow<Void>
        /// Tokens answered 410, by hash, with the time of that answer.
        var gone: [Int: EpochMilliseconds] = [:]
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            throttled = RecentWindow(windowMilliseconds: ProviderReportRules.backOffAfter429Milliseconds, capacity: capacity)
        }
    }

    func follow(token: UInt64, request: UInt64, time: EpochMilliseconds, status: Int, reason: APNsErrorReason?) -> Verdict {
        var verdict = Verdict()
        let index = Int(token >> 60) % Self.shardCount
        let bit = UInt32(1) << index
        let keeps = status == 410 || reason == .tooManyRequests
        let inUse = shardsInUse.load(ordering: .relaxed) & bit != 0
        // Written once per shard: a load of 410s does not write the bits' cache line each time.
        if keeps && !inUse { shardsInUse.bitwiseOr(bit, ordering: .relaxed) }
        if keeps || inUse {
            let tokenKey = Int(truncatingIfNeeded: token)
            (verdict.goneAt, verdict.throttledAt) = shards[index].withLock { shard in
                var goneAt: EpochMilliseconds?
                if !shard.gone.isEmpty, let at = shard.gone[tokenKey] {
                    goneAt = at
                } else if status == 410, shard.gone.count < shard.capacity {
                    shard.gone[tokenKey] = time
                }
                let throttledAt = shard.throttled.isEmpty ? nil : shard.throttled.recent(tokenKey, now: time)?.time
                if reason == .tooManyRequests { shard.throttled.keep(tokenKey, (), at: time) }
                return (goneAt, throttledAt)
            }
        }
        verdict.earlier = sent.exchange(RequestFingerprint.finish(RequestFingerprint.step(token, request)), time: time, status: status, reason: reason)
        return verdict
    }

    func removeAll() {
        shardsInUse.store(0, ordering: .relaxed)
        for shard in shards { shard.withLock { $0 = Shard(capacity: $0.capacity) } }
        sent.removeAll()
    }
}
