import GRDB
import PushlabCore

/// The store is the SQLite log of accepted pushes: pushes are committed with the requests (within
/// the crash window, or before the answer with `--durable`), and a position taken is committed
/// with the observations of the pushes up to it, which the store hears of as one of the
/// simulator's sinks (`record(batches:taking:)`).
extension PushlabStore: AcceptedPushLog {
    /// One partition: one delivery queue hands every push over, in order.
    public var partitions: DevicePartitions { DevicePartitions(count: 1) }

    public var durability: AcceptedPushLogDurability {
        if path == StoreDatabase.inMemoryPath { return .process }
        return isDurable ? .beforeAnswer : .crashWindow(crashWindow)
    }

    public func append(_ pushes: [AcceptedPush]) -> LoggedPositions {
        buffer.appendLogged(pushes, partitions: partitions)
    }

    public func markTaken(through position: LoggedPushPosition) {
        buffer.appendTaking(position)
    }

    /// Committed and still waiting alike, without duplicates (a batch may commit while this reads).
    public func untaken() throws(AcceptedPushLogError) -> [LoggedPush] {
        let committed: [LoggedPush]
        do {
            committed = try StoreDatabase.read(database, path: path) { db in try AcceptedPushRows.untaken(in: db) }
        } catch {
            throw AcceptedPushLogError("The log of accepted pushes in \(path) cannot be read: \(error)")
        }
        let unwritten = buffer.unwrittenLog
        var taken: [Int: Int64] = [:]
        for position in unwritten.taken { taken[position.partition] = max(taken[position.partition, default: 0], position.offset) }
        var seen = Set<LoggedPushPosition>()
        return (committed + unwritten.pushes)
            .filter { $0.position.offset > taken[$0.position.partition, default: 0] && seen.insert($0.position).inserted }
            .sorted { $0.position < $1.position }
    }
}
