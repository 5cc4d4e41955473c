import PushlabCore

/// The answers of one connection that wait for something, each with the ticket of what it waits
/// for: `--durable`, the commit of their records (`CommitTicket`); a cluster, the engine's
/// verdict on their pushes (`AdmissionTicket`). An answer is held as it is decided, stamped with
/// a ticket once its read's records are published, and released when that ticket is done.
/// At most one per open stream: MAX_CONCURRENT_STREAMS bounds what waits.
struct HeldAnswers<Ticket: Equatable> {
    struct Answer {
        var streamID: Int32
        var outcome: APNsOutcome
        var isHead: Bool
        /// Nil until the records are published and the commit asked for.
        var ticket: Ticket?
    }

    private(set) var answers: [Answer] = []
    /// The newest answers have no ticket yet (they were decided since the last `stamp`).
    private(set) var hasUnticketed = false

    mutating func hold(_ outcome: APNsOutcome, on streamID: Int32, isHead: Bool) {
        answers.append(Answer(streamID: streamID, outcome: outcome, isHead: isHead))
        hasUnticketed = true
    }

    /// Every answer without a ticket waits for `ticket`.
    mutating func stamp(_ ticket: Ticket) {
        for index in answers.indices.reversed() {
            guard answers[index].ticket == nil else { break }
            answers[index].ticket = ticket
        }
        hasUnticketed = false
    }

    /// Takes the answers that wait for `ticket` out, in the order they were decided.
    mutating func release(_ ticket: Ticket) -> [Answer] {
        let released = answers.filter { $0.ticket == ticket }
        if !released.isEmpty { answers.removeAll { $0.ticket == ticket } }
        return released
    }

    mutating func removeAll() {
        answers.removeAll()
        hasUnticketed = false
    }
}
