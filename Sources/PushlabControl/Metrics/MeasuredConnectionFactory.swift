import PushlabCore

extension ControlMetrics {
    /// `service` with its connections counted and its answers timed, for `/metrics`. Put it
    /// between the transport and the APNs rules; everything else passes through unchanged.
    public func measuring(_ service: any APNsConnectionFactory) -> any APNsConnectionFactory {
        MeasuredConnectionFactory(service: service, metrics: self)
    }
}

/// An `APNsConnectionFactory` that counts connections and times `handle` around another one.
struct MeasuredConnectionFactory: APNsConnectionFactory {
    let service: any APNsConnectionFactory
    let metrics: ControlMetrics

    func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler {
        metrics.connectionOpened()
        return MeasuredConnectionHandler(handler: service.makeConnectionHandler(for: connection), metrics: metrics)
    }
}

/// One connection's handler, timed. Used on the connection's event loop only, as the handler
/// it wraps, so its stored state skips Swift's run-time exclusivity checks (Benchmarks/results/performance-history.md).
final class MeasuredConnectionHandler: APNsConnectionHandler {
    private let handler: any APNsConnectionHandler
    private let metrics: ControlMetrics
    private var closed = false
    @exclusivity(unchecked) private var answerTimes = AnswerTimeHistogram.Counts()

    init(handler: any APNsConnectionHandler, metrics: ControlMetrics) {
        self.handler = handler
        self.metrics = metrics
    }

    var initialMaxConcurrentStreams: UInt32 { handler.initialMaxConcurrentStreams }

    var intakeIsBackedUp: Bool { handler.intakeIsBackedUp }

    func connectionDidStart() -> [ConnectionAction] { handler.connectionDidStart() }

    func handle(_ request: consuming APNsRequest) -> APNsOutcome {
        let start = AnswerTimeHistogram.now()
        let outcome = handler.handle(consume request)
        answerTimes.record(nanoseconds: AnswerTimeHistogram.now() - start + outcome.delayMilliseconds * 1_000_000)
        return outcome
    }

    func flushRecords() {
        handler.flushRecords()
        metrics.addAnswerTimes(&answerTimes)
    }

    func requestVerdicts(_ done: @escaping @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void) -> AnswerTicket? {
        handler.requestVerdicts(done)
    }

    func finishHeldAnswers(_ ticket: AnswerTicket, verdicts: [AdmissionVerdict]) -> [APNsOutcome] {
        handler.finishHeldAnswers(ticket, verdicts: verdicts)
    }

    func peerWasActive() { handler.peerWasActive() }

    var timesAnswers: Bool { handler.timesAnswers }

    func answerWasSent(afterNanoseconds elapsed: UInt64) { handler.answerWasSent(afterNanoseconds: elapsed) }

    func streamLimitWasExceeded() { handler.streamLimitWasExceeded() }

    var tickIntervalMilliseconds: Int64? { handler.tickIntervalMilliseconds }

    func tick() -> [ConnectionAction] { handler.tick() }

    func connectionDidClose() {
        guard !closed else { return }
        closed = true
        metrics.connectionClosed()
        handler.connectionDidClose()
        metrics.addAnswerTimes(&answerTimes)
    }
}
