/// The log of accepted pushes: every push APNs answered 200 for stays in it until its phone has
/// taken it (delivered it, stored it for an offline phone, or dropped it with a reason). APNs's
/// 200 means "accepted for delivery": a phone gets the push when it is reachable, even if a server
/// restarts in between, so on start the pushes still in the log are handed to their phones again.
///
/// The log is split into `partitions` by device (`DevicePartitions`): one device's pushes are in
/// one partition, in the order they were accepted, and taken in that order. A partition's
/// positions only grow, across restarts too.
///
/// Implementations: `InMemoryAcceptedPushLog` (nothing survives the process: `--db :memory:` and
/// PushlabTesting) and the store's SQLite log; `AcceptedPushLogContract` holds them to the same
/// rules.
public protocol AcceptedPushLog: AnyObject, Sendable {
    /// How many partitions the log has; fixed for its life.
    var partitions: DevicePartitions { get }

    /// What a returned `append` promises.
    var durability: AcceptedPushLogDurability { get }

    /// Appends pushes accepted together, in order, each to its device's partition; returns
    /// their positions, in the same order. A push with no device (`deviceID` nil) has nothing to
    /// take it and is not logged: its position is nil. Called by the delivery queue under its
    /// lock, so that the log's order is the queue's: return quickly.
    func append(_ pushes: [AcceptedPush]) -> LoggedPositions

    /// Every push of `position.partition` up to and including `position` has been taken.
    /// Taking a position already taken, or below it, does nothing.
    func markTaken(through position: LoggedPushPosition)

    /// What was appended and not taken, oldest first within each partition, partitions in order.
    func untaken() throws(AcceptedPushLogError) -> [LoggedPush]
}

/// What a returned `append` promises about a crash.
public enum AcceptedPushLogDurability: Sendable, Equatable {
    /// Nothing: the log lives and dies with the process.
    case process
    /// Committed within this window of being appended: a `kill -9` loses at most what was
    /// appended in the window before it.
    case crashWindow(Duration)
    /// Committed before the push is answered (`pushlab serve --durable`).
    case beforeAnswer
}

/// Where a logged push lies: its partition and its place in it.
public struct LoggedPushPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var partition: Int
    /// Grows by one with each push appended to the partition; the first is 1.
    public var offset: Int64

    public init(partition: Int, offset: Int64) {
        self.partition = partition
        self.offset = offset
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.partition, lhs.offset) < (rhs.partition, rhs.offset)
    }

    public var description: String { "\(partition):\(offset)" }
}

/// A push in the log, with its place.
public struct LoggedPush: Sendable {
    public var position: LoggedPushPosition
    public var push: AcceptedPush

    public init(position: LoggedPushPosition, push: AcceptedPush) {
        self.position = position
        self.push = push
    }
}

/// The positions an `append` gave its pushes, in their order: most often one run in one
/// partition, held as its first offset rather than an array (a queued burst keeps them all).
public enum LoggedPositions: Sendable, Equatable, RandomAccessCollection {
    /// `count` pushes at consecutive offsets of one partition, from `first`.
    case run(partition: Int, first: Int64, count: Int)
    /// Any other mix, a nil for each push not logged.
    case each([LoggedPushPosition?])

    public static let none = LoggedPositions.each([])

    /// One run where the positions allow it.
    public init(_ positions: [LoggedPushPosition?]) {
        if let first = positions.first ?? nil,
           positions.indices.allSatisfy({ positions[$0] == LoggedPushPosition(partition: first.partition, offset: first.offset + Int64($0)) }) {
            self = .run(partition: first.partition, first: first.offset, count: positions.count)
        } else {
            self = .each(positions)
        }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch self {
        case .run(_, _, let count): count
        case .each(let positions): positions.count
        }
    }

    public subscript(index: Int) -> LoggedPushPosition? {
        switch self {
        case .run(let partition, let first, _): LoggedPushPosition(partition: partition, offset: first + Int64(index))
        case .each(let positions): positions[index]
        }
    }
}

/// The log cannot be read back.
public struct AcceptedPushLogError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
