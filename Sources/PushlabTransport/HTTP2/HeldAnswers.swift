import NIOCore
import PushlabCore

/// The answers of one connection that wait for their verdict (`APNsOutcome.isHeld`): a
/// cluster's engine on their pushes, the commit of their records with `--durable`. An answer is
/// held as its request is decided, stamped with a ticket once its read's records are published
/// and its verdict asked for (`APNsConnectionHandler.requestVerdicts`), and released when that
/// ticket's verdicts come. At most one per open stream: MAX_CONCURRENT_STREAMS bounds what waits.
struct HeldAnswers {
    struct Answer {
        var streamID: Int32
        var outcome: APNsOutcome
        var isHead: Bool
        /// When it was held, for an outcome with a delay (the delay runs from then).
        var heldAt: NIODeadline?
        /// Nil until the records are published and the verdicts asked for.
        var ticket: AnswerTicket?
    }

    private(set) var answers: [Answer] = []
    /// The newest answers have no ticket yet (they were decided since the last `stamp`).
    private(set) var hasUnticketed = false

    mutating func hold(_ outcome: APNsOutcome, on streamID: Int32, isHead: Bool, at heldAt: NIODeadline? = nil) {
        answers.append(Answer(streamID: streamID, outcome: outcome, isHead: isHead, heldAt: heldAt))
        hasUnticketed = true
    }

    /// Every answer without a ticket waits for `ticket`.
    mutating func stamp(_ ticket: AnswerTicket) {
        for index in answers.indices.reversed() {
            guard answers[index].ticket == nil else { break }
            answers[index].ticket = ticket
        }
        hasUnticketed = false
    }

    /// Takes the answers that wait for `ticket` out, in the order they were decided.
    mutating func release(_ ticket: AnswerTicket) -> [Answer] {
        let released = answers.filter { $0.ticket == ticket }
        if !released.isEmpty { answers.removeAll { $0.ticket == ticket } }
        return released
    }

    mutating func removeAll() {
        answers.removeAll()
        hasUnticketed = false
    }
}
