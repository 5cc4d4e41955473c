/// The seam between transport and APNs rules: it makes one handler per connection, which the
/// transport calls on the connection's event loop, one request at a time; per-connection state
/// (bound team, last provider token) lives in the handler.
public protocol APNsConnectionFactory: Sendable {
    func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler
}

public protocol APNsConnectionHandler: AnyObject {
    /// MAX_CONCURRENT_STREAMS for the initial SETTINGS.
    var initialMaxConcurrentStreams: UInt32 { get }
    /// Actions to take as soon as the connection is up (e.g. GOAWAY for a wrong-environment certificate).
    func connectionDidStart() -> [ConnectionAction]
    /// The answer to one complete request. What it records (the request log) and the push it
    /// accepts (the sink) are handed on at the next `flushRecords()`.
    /// The request is handed over, not copied: the rules keep it while they run.
    func handle(_ request: consuming APNsRequest) -> APNsOutcome
    /// Publishes what was recorded since the last call. A transport calls it before it writes
    /// answers, so that a client holding an answer can read its record, and on close; between
    /// the two, the answers of one read are published together.
    func flushRecords()
    /// The client sent something (any frame): resets idle time. The requests that complete before
    /// the next `flushRecords` arrived in that read and are stamped with its time.
    func peerWasActive()
    /// How often the transport calls `tick()`; nil for never.
    var tickIntervalMilliseconds: Int64? { get }
    /// Time-driven actions (idle timeout).
    func tick() -> [ConnectionAction]
    func connectionDidClose()
    /// Whoever takes the accepted pushes is behind (`PushSink.isBackedUp`): the transport
    /// waits a little before it reads this connection again.
    var intakeIsBackedUp: Bool { get }
    /// Asks for the verdicts of the answers held (`APNsOutcome.isHeld`) since the last call: the
    /// sink's that decides later (`PushSink.verdictNow`: a cluster's engine), the store's commit of their records
    /// (`--durable`, `CommittingConnectionFactory`). Called after `flushRecords`; `done` comes
    /// once, on any thread, with verdicts the transport hands back to `finishHeldAnswers`
    /// unread. Nil when none is held.
    func requestVerdicts(_ done: @escaping @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void) -> AnswerTicket?
    /// The final outcomes of the answers that waited for `ticket`, in the order they were
    /// decided; the records of those it changed are published at the next `flushRecords`. A
    /// final outcome's response replaces the provisional one; its actions come after the
    /// provisional's, and its delay after what is left of the provisional's. A final outcome
    /// can be held again (`isHeld`: a counted fault rule passed, and the push now waits for its
    /// sink's verdict): the transport holds it and asks for its verdict at the next flush.
    func finishHeldAnswers(_ ticket: AnswerTicket, verdicts: [AdmissionVerdict]) -> [APNsOutcome]
    /// Whether the transport should time each answer (`answerWasSent`): asked as each request
    /// completes; false costs nothing more.
    var timesAnswers: Bool { get }
    /// An answer went out this long after its request's last frame (a reset stream counts).
    func answerWasSent(afterNanoseconds elapsed: UInt64)
    /// The client opened a stream beyond MAX_CONCURRENT_STREAMS, and was refused it.
    func streamLimitWasExceeded()
}

extension APNsConnectionHandler {
    public func connectionDidStart() -> [ConnectionAction] { [] }
    public func flushRecords() {}
    public func peerWasActive() {}
    public var tickIntervalMilliseconds: Int64? { nil }
    public func tick() -> [ConnectionAction] { [] }
    public func connectionDidClose() {}
    public var intakeIsBackedUp: Bool { false }
    public func requestVerdicts(_ done: @escaping @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void) -> AnswerTicket? { nil }
    public func finishHeldAnswers(_ ticket: AnswerTicket, verdicts: [AdmissionVerdict]) -> [APNsOutcome] { [] }
    public var timesAnswers: Bool { false }
    public func answerWasSent(afterNanoseconds elapsed: UInt64) {}
    public func streamLimitWasExceeded() {}
}

/// The answer to a request plus what, if anything, should happen to the connection.
public struct APNsOutcome: Sendable, Equatable {
    /// nil resets the stream (RST_STREAM) instead of answering.
    public var response: APNsResponse?
    /// Answer this much later (fault injection).
    public var delayMilliseconds: Int64
    public var actions: [ConnectionAction]
    /// The response is provisional: the transport holds it until its verdict
    /// (`APNsConnectionHandler.requestVerdicts`), and sends what `finishHeldAnswers` makes of it.
    /// A cluster holds the 200s the rules gave until the engine's verdict; `--durable` holds
    /// every answer until its record is committed.
    public var isHeld: Bool

    public init(_ response: APNsResponse?, delayMilliseconds: Int64 = 0, actions: [ConnectionAction] = [], isHeld: Bool = false) {
        self.response = response
        self.delayMilliseconds = delayMilliseconds
        self.actions = actions
        self.isHeld = isHeld
    }
}

public enum ConnectionAction: Sendable, Equatable {
    /// Announce a new MAX_CONCURRENT_STREAMS in a SETTINGS frame.
    case setMaxConcurrentStreams(UInt32)
    /// GOAWAY with `{"reason":…}` debug data, then close once in-flight streams finish.
    case goAway(APNsErrorReason)
    /// Drop the connection at once, without GOAWAY.
    case close
}
