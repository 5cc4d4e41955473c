/// What `pushlab serve --durable` waits on before it answers: the commits of the request log's
/// records to the store. A transport publishes a read's records (`APNsConnectionHandler.flushRecords()`),
/// then asks to be told when they are committed, and holds those answers until then. One commit
/// answers every record published before it started (group commit).
public protocol RecordCommits: Sendable {
    /// Calls `done` once, with the ticket returned here, when every record published so far is
    /// committed (`true`) or the commit that held them failed (`false`): on the thread that
    /// committed, or at once on this one when nothing can be committed any more.
    func afterCommit(_ done: @escaping @Sendable (CommitTicket, _ committed: Bool) -> Void) -> CommitTicket
}

/// Which commit a wait is for. Waits in the same commit share a ticket; a wait that can never be
/// committed (the store is closing) gets `refused`, which no commit has.
public struct CommitTicket: Sendable, Hashable, Comparable {
    public let number: UInt64

    public init(_ number: UInt64) {
        self.number = number
    }

    public static let refused = CommitTicket(0)

    public static func < (lhs: CommitTicket, rhs: CommitTicket) -> Bool { lhs.number < rhs.number }
}
