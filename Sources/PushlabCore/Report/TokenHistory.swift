/// What the report remembers of each device token across requests and providers: its recent
/// requests (for retries), its 410, its last 429. Sharded by the token's hash, so two event loops
/// rarely wait for each other, and each request takes one shard's lock once.
final class TokenHistory: Sendable {
    private static let shardCount = 16
    private let shards: [LockedShard<Shard>]

    /// `capacity` tokens for the 410 and 429 rules, `requests` for the retry rule.
    init(remembering capacity: Int, requests: Int) {
        let perShard = max(1, capacity / Self.shardCount)
        let requestsPerShard = max(1, requests / Self.shardCount)
        shards = (0..<Self.shardCount).map { _ in LockedShard(Shard(capacity: perShard, requests: requestsPerShard)) }
    }

    /// What the history knew of a request's token before it, once the request is added.
    struct Verdict {
        /// When the token was first answered 410, if it was.
        var goneAt: EpochMilliseconds?
        /// When the token was last answered 429 `TooManyRequests`, within the back-off time.
        var throttledAt: EpochMilliseconds?
        /// The same token and request within the retry window, and how it was answered.
        var earlier: (time: EpochMilliseconds, status: Int, reason: APNsErrorReason?)?
    }

    struct Shard: Sendable {
        var sent: RecentRequests
        var throttled: RecentWindow<Void>
        /// Tokens answered 410, by hash, with the time of that answer.
        var gone: [Int: EpochMilliseconds] = [:]
        let capacity: Int
        let requests: Int

        init(capacity: Int, requests: Int) {
            self.capacity = capacity
            self.requests = requests
            sent = RecentRequests(windowMilliseconds: ProviderReportRules.retryWindowMilliseconds, slots: requests)
            throttled = RecentWindow(windowMilliseconds: ProviderReportRules.backOffAfter429Milliseconds, capacity: capacity)
        }
    }

    func follow(token: UInt64, request: UInt64, time: EpochMilliseconds, status: Int, reason: APNsErrorReason?) -> Verdict {
        let key = RequestFingerprint.finish(RequestFingerprint.step(token, request))
        let tokenKey = Int(truncatingIfNeeded: token)
        // The shard by the fingerprint's top bits; the slot within it by the key's low bits.
        let shard = shards[Int(token >> 60) % Self.shardCount]
        return shard.withLock { shard in
            var verdict = Verdict()
            if !shard.gone.isEmpty, let goneAt = shard.gone[tokenKey] {
                verdict.goneAt = goneAt
            } else if status == 410, shard.gone.count < shard.capacity {
                shard.gone[tokenKey] = time
            }
            if !shard.throttled.isEmpty { verdict.throttledAt = shard.throttled.recent(tokenKey, now: time)?.time }
            if reason == .tooManyRequests { shard.throttled.keep(tokenKey, (), at: time) }
            if let earlier = shard.sent.exchange(key, time: time, status: status, reason: reason) {
                verdict.earlier = (earlier.time, Int(earlier.status), earlier.reason)
            }
            return verdict
        }
    }

    func removeAll() {
        for shard in shards { shard.withLock { $0 = Shard(capacity: $0.capacity, requests: $0.requests) } }
    }
}
