/// A way for tests and the control API to make Pushlab misbehave as Apple sometimes does.
public protocol FaultInjector: Sendable {
    /// Consulted before any rule for every request; nil lets the request through.
    func fault(for request: APNsRequest, connection: ConnectionInfo, now: EpochMilliseconds) -> Fault?
}

public enum Fault: Sendable, Equatable {
    /// Answer with this reason (e.g. 500 `InternalServerError`, 503 `ServiceUnavailable`).
    case respond(APNsErrorReason)
    /// Process normally, but answer this many milliseconds later.
    case delay(milliseconds: Int64)
    /// GOAWAY `{"reason":…}` and close once in-flight streams finish.
    case goAway(APNsErrorReason)
    /// RST_STREAM instead of an answer.
    case resetStream
    /// Drop the TCP connection without a word.
    case closeConnection
}
