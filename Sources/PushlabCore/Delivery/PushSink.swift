/// Where the pushes, broadcasts and channel changes the APNs rules accepted go, and who has the
/// last word on them. Every sink decides; most decide at once:
///
/// - A single process's sink (the delivery pipeline, or the simulator itself) counts a token's
///   pushes itself, with `DeviceTokenRateLimiter`, and answers at once (`verdictNow`). The
///   rules' answers stand, and `accept` takes what they accepted.
/// - A cluster node's sink (`EnginePushSink`) decides a push's 410 and 429 with every node's
///   requests and confirms the append in the engine; a broadcast and a channel change reach
///   every node first. Its `verdictNow` is nil: the answers wait (`APNsOutcome.isHeld`) for
///   `decide`.
///
/// Called on the event loop: return quickly. Class-bound: every connection asks it about every
/// push, and borrows it from the service instead of retaining it each time
/// (Benchmarks/results/history.md, shared reference counts).
public protocol PushSink: AnyObject, Sendable {
    /// Whether `accept` reads `payload`; when false the payload is only parsed if a rule needs it.
    var needsPayload: Bool { get }
    /// Whether `accept` does anything with a push to a token of this simulated device (nil: a
    /// token with no device behind it, or one APNs does not know). When false the push is not
    /// even assembled: a load test's bare tokens cost the sink nothing.
    func takesPushes(toDevice deviceID: String?) -> Bool
    func accept(_ push: AcceptedPush)
    /// Pushes accepted together (the answers of one read of a connection), in order.
    func accept(_ pushes: [AcceptedPush])
    /// A broadcast accepted on a channel: every subscribed Live Activity receives it.
    func accept(broadcast: AcceptedBroadcast)
    /// More waits for this sink than it will take in soon: a transport reads its connections
    /// more slowly while this holds (TCP pushes back on the providers; nothing is refused).
    /// Read on every read of every connection, so it must be a few plain loads.
    var isBackedUp: Bool { get }

    /// The verdict on a push every rule accepted, if this sink gives it at once. `tokenAdmitted`
    /// counts the push in its token's rate-limit window, in Swift: false is over the limit, nil
    /// is no limit. nil: the verdict comes from `decide`, and the answer waits for it.
    func verdictNow(tokenAdmitted: () -> Bool?) -> AdmissionVerdict?
    /// The same for a broadcast or a channel change the rules accepted.
    func verdictNow(on item: SinkItem) -> AdmissionVerdict?
    /// Decides what `verdictNow` left to it, in order (`limit`: the token rate limit of its
    /// pushes, nil for none), takes what it accepts, and calls `done` once, on any thread, with
    /// a verdict an item, in their order.
    func decide(_ items: [SinkItem], limit: APNsPolicy.RateLimit?, done: @escaping @Sendable ([AdmissionVerdict]) -> Void)
}

extension PushSink {
    public var needsPayload: Bool { true }
    public func takesPushes(toDevice deviceID: String?) -> Bool { true }
    public func accept(_ pushes: [AcceptedPush]) {
        for push in pushes { accept(push) }
    }
    public func accept(broadcast: AcceptedBroadcast) {}
    public var isBackedUp: Bool { false }

    /// A sink that decides at once: the token's window in Swift, nothing else.
    public func verdictNow(tokenAdmitted: () -> Bool?) -> AdmissionVerdict? {
        tokenAdmitted() == false ? .tooManyRequests : .accepted
    }

    public func verdictNow(on item: SinkItem) -> AdmissionVerdict? { .accepted }

    /// Only reached by a sink that leaves verdicts to `decide` without deciding there: it takes
    /// everything, as one that decides at once would have.
    public func decide(_ items: [SinkItem], limit: APNsPolicy.RateLimit?, done: @escaping @Sendable ([AdmissionVerdict]) -> Void) {
        var pushes: [AcceptedPush] = []
        for item in items {
            switch item {
            case .push(let push): pushes.append(push)
            case .broadcast(let broadcast): accept(broadcast: broadcast)
            case .channel: break
            }
        }
        if !pushes.isEmpty { accept(pushes) }
        done(Array(repeating: .accepted, count: items.count))
    }
}

/// What the rules accepted and a sink decides: a push, a broadcast, or a channel created or
/// deleted through one node's channel API.
public enum SinkItem: Sendable {
    case push(AcceptedPush)
    case broadcast(AcceptedBroadcast)
    case channel(ChannelChange)
}

/// A broadcast channel created or deleted through the channel management API.
public enum ChannelChange: Sendable, Equatable {
    case created(BroadcastChannel)
    case deleted(BroadcastChannel)
}

/// What a sink made of one push, broadcast or channel change (`PushSink`), or a cluster's
/// engine of a counted fault rule's check (`FaultCounter`).
public enum AdmissionVerdict: Sendable, Equatable {
    /// Accepted for delivery: 200.
    case accepted
    /// 410 `Unregistered` with the time the token stopped being valid.
    case unregistered(since: EpochMilliseconds)
    /// 410 `ExpiredToken` with its time.
    case expired(since: EpochMilliseconds)
    /// 429 `TooManyRequests`: over the token's limit (counted across every node, in a cluster).
    case tooManyRequests
    /// The engine could not be reached or did not confirm (a failover, `WAIT` timed out): 500
    /// `InternalServerError`, which a provider retries; nothing was accepted.
    case failed
    /// What the engine made of a request's `FaultCheck`.
    case checked(FaultCheckResult)
}
