/// A way for tests and the control API to make Pushlab misbehave as Apple sometimes does.
/// Class-bound: each connection holds it and asks it per request, which for a reference is a
/// pointer copy rather than a copy of an existential box.
public protocol FaultInjector: AnyObject, Sendable {
    /// False while no fault can fire: the request is not handed over at all (asked per request,
    /// so it must be cheap, an atomic load at most).
    var mayFault: Bool { get }
    /// Consulted before any rule for every request while `mayFault`; nil lets the request through.
    func fault(for request: APNsRequest, connection: ConnectionInfo, now: EpochMilliseconds) -> Fault?
}

extension FaultInjector {
    public var mayFault: Bool { true }
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
