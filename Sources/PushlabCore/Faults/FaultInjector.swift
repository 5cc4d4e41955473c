/// A way for tests and the control API to make Pushlab misbehave as Apple sometimes does.
/// Class-bound: each connection holds it and asks it per request, which for a reference is a
/// pointer copy rather than a copy of an existential box.
public protocol FaultInjector: AnyObject, Sendable {
    /// False while no fault can fire: the request is not handed over at all (asked per request,
    /// so it must be cheap, an atomic load at most).
    var mayFault: Bool { get }
    /// Consulted before any rule for every request while `mayFault`; nil lets the request through.
    func fault(for request: APNsRequest, connection: ConnectionInfo, now: EpochMilliseconds) -> Fault?
    /// As `fault`, for the device API, which may leave a rule's decision to a cluster's engine
    /// (`FaultDecision.check`); `after`: a rule whose check passed, to go on after it.
    func decision(for request: APNsRequest, connection: ConnectionInfo, now: EpochMilliseconds, after rule: String?) -> FaultDecision?
    /// The engine says a counted rule has fired its `count` times on the nodes: it is gone.
    func ruleSpent(_ rule: String)
    /// Counts the requests `decision` left to a counter (`FaultDecision.check`), in their order,
    /// and calls `done` once, on any thread, with what each rule did: nothing when the counter
    /// could not be asked (those requests are answered 500, as APNs answers when it fails).
    func check(_ checks: [FaultCheck], done: @escaping @Sendable ([FaultCheckResult]) -> Void)
}

/// Counts the requests of counted fault rules (`count`, `everyNth`) with every node's: a
/// cluster's engine (`EngineFaultCounts`).
public protocol FaultCounter: Sendable {
    func check(_ checks: [FaultCheck], done: @escaping @Sendable ([FaultCheckResult]) -> Void)
}

extension FaultInjector {
    public var mayFault: Bool { true }

    /// An injector that leaves no decision to a counter is never asked.
    public func check(_ checks: [FaultCheck], done: @escaping @Sendable ([FaultCheckResult]) -> Void) { done([]) }

    public func decision(for request: APNsRequest, connection: ConnectionInfo, now: EpochMilliseconds, after rule: String?) -> FaultDecision? {
        rule == nil ? fault(for: request, connection: connection, now: now).map(FaultDecision.fault) : nil
    }

    public func ruleSpent(_ rule: String) {}
}

/// What the rules make of a request.
public enum FaultDecision: Sendable, Equatable {
    case fault(Fault)
    /// A rule counted across a cluster's nodes selects the request: whether it fires is the
    /// engine's to say, and the request waits for it.
    case check(FaultCheck)
}

/// A request a counted rule (`count`, `everyNth`) selects, for a cluster's engine to count with
/// every node's: the rule's `matched` goes up by one; it fires if that is its Nth and the draw
/// for its `probability` was lucky, unless it has fired `count` times already (it is gone).
public struct FaultCheck: Sendable, Equatable {
    public var rule: String
    public var everyNth: Int?
    public var count: Int?
    /// The draw for the rule's probability, made here: false never fires.
    public var lucky: Bool
    public var fault: Fault

    public init(rule: String, everyNth: Int?, count: Int?, lucky: Bool, fault: Fault) {
        self.rule = rule
        self.everyNth = everyNth
        self.count = count
        self.lucky = lucky
        self.fault = fault
    }
}

/// What the engine made of a `FaultCheck`.
public enum FaultCheckResult: Sendable, Equatable {
    case passes
    case fires
    /// Fired for the `count`th time: the rule is gone after this one.
    case firesLast
    /// Gone already: it fired `count` times on the nodes.
    case spent
}

public enum Fault: Sendable, Equatable {
    /// Answer with this reason (e.g. 500 `InternalServerError`, 503 `ServiceUnavailable`).
    case respond(APNsErrorReason)
    /// Process normally, but answer this many milliseconds later.
    case delay(milliseconds: Int64)
    /// GOAWAY `{"reason":…}`; the triggering stream is reset, the others in flight finish, then
    /// the connection closes.
    case goAway(APNsErrorReason)
    /// RST_STREAM instead of an answer.
    case resetStream
    /// Close the connection at once: no answer and no GOAWAY (TLS still sends close_notify).
    case closeConnection
}
