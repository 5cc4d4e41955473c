import PushlabCore

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
    /// take it and is not logged: its position is nil.
    func append(_ pushes: [AcceptedPush]) -> [LoggedPushPosition?]

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

/// The log cannot be read back.
public struct AcceptedPushLogError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
