import Synchronization

/// `pushlab serve --durable`: every answer waits until the records published before it (its own
/// among them) are committed (`RecordCommits`). A failed commit answers 500
/// `InternalServerError` with the same id instead: nothing claims what was not committed. It
/// goes between the transport and the APNs rules, as `MeasuredConnectionFactory` does, so that
/// the transport holds answers in one way whatever they wait for.
public struct CommittingConnectionFactory: APNsConnectionFactory {
    let service: any APNsConnectionFactory
    let commits: any RecordCommits

    public init(service: any APNsConnectionFactory, commits: any RecordCommits) {
        self.service = service
        self.commits = commits
    }

    public func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler {
        CommittingConnectionHandler(handler: service.makeConnectionHandler(for: connection), commits: commits)
    }
}

/// One connection's answers, held for their commit. Used on the connection's event loop only,
/// as the handler it wraps, so its stored state skips Swift's run-time exclusivity checks.
final class CommittingConnectionHandler: APNsConnectionHandler {
    private let handler: any APNsConnectionHandler
    private let commits: any RecordCommits
    /// The answers held since the last `requestVerdicts`, in the order they were decided.
    @exclusivity(unchecked) private var unticketed: [Held] = []
    @exclusivity(unchecked) private var waiting: [AnswerTicket: Waiting] = [:]
    @exclusivity(unchecked) private var lastTicket: UInt64 = 0

    private enum Held {
        /// Decided by the rules (its response; nil resets the stream): it waits for the commit
        /// only. Its delay and actions stay with the provisional outcome the transport holds.
        case decided(APNsResponse?)
        /// Held by the handler wrapped, for a verdict of its own. It goes out as that verdict
        /// makes it: a handler that holds answers (a cluster's) has no store to commit to.
        case byHandler
    }

    private struct Waiting {
        var answers: [Held]
        var handlerTicket: AnswerTicket?
    }

    init(handler: any APNsConnectionHandler, commits: any RecordCommits) {
        self.handler = handler
        self.commits = commits
    }

    func handle(_ request: consuming APNsRequest) -> APNsOutcome {
        var outcome = handler.handle(consume request)
        if outcome.isHeld {
            unticketed.append(.byHandler)
            return outcome
        }
        unticketed.append(.decided(outcome.response))
        outcome.isHeld = true
        return outcome
    }

    /// Asks for the commit of every record published so far (`flushRecords` came first), and
    /// for the wrapped handler's verdicts on what it holds; `done` once both are in, with the
    /// handler's verdicts followed by the commit's (`.accepted` or `.failed`).
    func requestVerdicts(_ done: @escaping @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void) -> AnswerTicket? {
        guard !unticketed.isEmpty else { return nil }
        lastTicket += 1
        let ticket = AnswerTicket(lastTicket)
        let verdicts = CommitAndHandlerVerdicts { done(ticket, $0) }
        let handlerTicket = unticketed.contains { if case .byHandler = $0 { true } else { false } }
            ? handler.requestVerdicts { _, held in verdicts.handlerDecided(held) }
            : nil
        if handlerTicket == nil { verdicts.handlerDecided([]) }
        waiting[ticket] = Waiting(answers: unticketed, handlerTicket: handlerTicket)
        unticketed.removeAll(keepingCapacity: true)
        _ = commits.afterCommit { _, committed in verdicts.committed(committed) }
        return ticket
    }

    func finishHeldAnswers(_ ticket: AnswerTicket, verdicts: [AdmissionVerdict]) -> [APNsOutcome] {
        guard let held = waiting.removeValue(forKey: ticket) else { return [] }
        let committed = verdicts.last == .accepted
        let handlersOutcomes = held.handlerTicket.map { handler.finishHeldAnswers($0, verdicts: Array(verdicts.dropLast())) } ?? []
        var next = handlersOutcomes.makeIterator()
        return held.answers.map { answer in
            switch answer {
            case .decided(let response):
                return APNsOutcome(committed ? response : response.map(\.failedToCommit))
            case .byHandler:
                // A handler that lost track of an answer: the stream is reset, as for any answer
                // that cannot be given.
                let outcome = next.next() ?? APNsOutcome(nil)
                // Held again for the next verdict (the transport holds it in this order).
                if outcome.isHeld { unticketed.append(.byHandler) }
                return outcome
            }
        }
    }

    var initialMaxConcurrentStreams: UInt32 { handler.initialMaxConcurrentStreams }
    var intakeIsBackedUp: Bool { handler.intakeIsBackedUp }
    var tickIntervalMilliseconds: Int64? { handler.tickIntervalMilliseconds }
    var timesAnswers: Bool { handler.timesAnswers }
    func connectionDidStart() -> [ConnectionAction] { handler.connectionDidStart() }
    func flushRecords() { handler.flushRecords() }
    func peerWasActive() { handler.peerWasActive() }
    func tick() -> [ConnectionAction] { handler.tick() }
    func connectionDidClose() { handler.connectionDidClose() }
    func answerWasSent(afterNanoseconds elapsed: UInt64) { handler.answerWasSent(afterNanoseconds: elapsed) }
    func streamLimitWasExceeded() { handler.streamLimitWasExceeded() }
}

/// A ticket's two verdicts, which come on any thread: the commit's and the wrapped handler's.
private final class CommitAndHandlerVerdicts: Sendable {
    private let state = Mutex<(handler: [AdmissionVerdict]?, committed: Bool?)>((nil, nil))
    private let done: @Sendable ([AdmissionVerdict]) -> Void

    init(done: @escaping @Sendable ([AdmissionVerdict]) -> Void) {
        self.done = done
    }

    func handlerDecided(_ verdicts: [AdmissionVerdict]) {
        finish { $0.handler = verdicts }
    }

    func committed(_ committed: Bool) {
        finish { $0.committed = committed }
    }

    private func finish(_ change: (inout (handler: [AdmissionVerdict]?, committed: Bool?)) -> Void) {
        let complete: [AdmissionVerdict]? = state.withLock { state in
            change(&state)
            guard let handler = state.handler, let committed = state.committed else { return nil }
            return handler + [committed ? .accepted : .failed]
        }
        if let complete { done(complete) }
    }
}

extension APNsResponse {
    /// The answer when its record could not be committed: 500 `InternalServerError` with the
    /// same id, as APNs answers when it fails on its side (a reset stays a reset).
    var failedToCommit: APNsResponse {
        var failed = APNsResponse.failure(.internalServerError, apnsID: apnsIDValue)
        failed.idHeader = idHeader
        return failed
    }
}
