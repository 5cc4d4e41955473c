/// The last word on pushes the rules accepted, from what every node of a cluster shares: the
/// token's state (410), its rate-limit window (429) and the log of accepted pushes. A single
/// process has none (the rules decide alone); `pushlab serve --cluster` asks the engine. The
/// answers of the pushes wait for it: a 200 goes out once the push is in the engine.
public protocol PushAdmission: Sendable {
    /// Decides `pushes` (their per-token limit: `limit`, nil for none) and calls `done` once,
    /// on any thread, with a verdict a push, in their order.
    func admit(_ pushes: [AcceptedPush], limit: APNsPolicy.RateLimit?, done: @escaping @Sendable ([AdmissionVerdict]) -> Void)

    /// Takes a broadcast the rules accepted for every subscribed phone, wherever it is simulated,
    /// and calls `done` once, on any thread: `.accepted`, or `.failed` when the engine did not
    /// take it (500, and no phone gets it).
    func admit(broadcast: AcceptedBroadcast, done: @escaping @Sendable (AdmissionVerdict) -> Void)

    /// Takes a channel the channel API created or deleted on this node to every node's world,
    /// and calls `done` once, on any thread, when every node has it (`.accepted`) or when the
    /// engine did not take it (`.failed`: 500, and this node undoes it).
    func admit(channel change: ChannelChange, done: @escaping @Sendable (AdmissionVerdict) -> Void)

    /// Counts requests for fault rules with every node's (`FaultCheck`), in their order, and
    /// calls `done` once, on any thread, with what each rule did: nothing when the engine could
    /// not be asked (those requests are answered 500, as APNs answers when it fails).
    func check(faults: [FaultCheck], done: @escaping @Sendable ([FaultCheckResult]) -> Void)
}

/// A broadcast channel created or deleted through one node's channel API.
public enum ChannelChange: Sendable, Equatable {
    case created(BroadcastChannel)
    case deleted(BroadcastChannel)
}

/// What the engine made of one push.
public enum AdmissionVerdict: Sendable, Equatable {
    /// Accepted for delivery: 200.
    case accepted
    /// 410 `Unregistered` with the time the token stopped being valid.
    case unregistered(since: EpochMilliseconds)
    /// 410 `ExpiredToken` with its time.
    case expired(since: EpochMilliseconds)
    /// 429 `TooManyRequests`: over the token's limit, counted across every node.
    case tooManyRequests
    /// The engine could not be reached or did not confirm (a failover, `WAIT` timed out): 500
    /// `InternalServerError`, which a provider retries; nothing was accepted.
    case failed
    /// What the engine made of a request's `FaultCheck`.
    case checked(FaultCheckResult)
}
