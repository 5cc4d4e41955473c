import PushlabCore
import Synchronization

/// The log in memory: what `--db :memory:` and PushlabTesting use. Nothing survives the
/// process, which is all that such a run promises (`durability` is `.process`).
public final class InMemoryAcceptedPushLog: AcceptedPushLog {
    public let partitions: DevicePartitions
    public var durability: AcceptedPushLogDurability { .process }

    private struct Partition {
        /// Untaken pushes, oldest first, from `head` on (taken ones are dropped in slices).
        var pushes: [LoggedPush] = []
        var head = 0
        var lastOffset: Int64 = 0
        var takenThrough: Int64 = 0

        mutating func take(through offset: Int64) {
            guard offset > takenThrough else { return }
            takenThrough = min(offset, lastOffset)
            while head < pushes.count, pushes[head].position.offset <= takenThrough { head += 1 }
            // Let the taken slice go once it is most of the array, so memory follows the backlog.
            if head > 1024 && head * 2 > pushes.count {
                pushes.removeFirst(head)
                head = 0
            } else if head == pushes.count {
                pushes.removeAll(keepingCapacity: pushes.count <= 4096)
                head = 0
            }
        }
    }

    private let state: Mutex<[Partition]>

    public init(partitions: DevicePartitions = DevicePartitions(count: 1)) {
        self.partitions = partitions
        state = Mutex(Array(repeating: Partition(), count: partitions.count))
    }

    public func append(_ pushes: [AcceptedPush]) -> LoggedPositions {
        state.withLock { logs in
            LoggedPositions(pushes.map { push -> LoggedPushPosition? in
                guard let deviceID = push.deviceID else { return nil }
                let partition = partitions.partition(of: deviceID)
                logs[partition].lastOffset += 1
                let position = LoggedPushPosition(partition: partition, offset: logs[partition].lastOffset)
                logs[partition].pushes.append(LoggedPush(position: position, push: push))
                return position
            })
        }
    }

    public func markTaken(through position: LoggedPushPosition) {
        guard (0..<partitions.count).contains(position.partition) else { return }
        state.withLock { $0[position.partition].take(through: position.offset) }
    }

    public func untaken() throws(AcceptedPushLogError) -> [LoggedPush] {
        state.withLock { logs in logs.flatMap { $0.pushes[$0.head...] } }
    }

    /// Pushes waiting to be taken, in every partition.
    public var count: Int {
        state.withLock { logs in logs.reduce(0) { $0 + $1.pushes.count - $1.head } }
    }
}
