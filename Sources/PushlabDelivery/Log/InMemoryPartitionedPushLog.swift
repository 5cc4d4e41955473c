import PushlabCore
import PushlabSimulator
import Synchronization

/// A `PartitionedPushLog` in memory, shared by the readers made from it (`reader(_:)`): for tests
/// of the deliverer without an engine, and the contract suite's second implementation. A
/// partition is held by the reader that took from it last, or that `hold` named, as an engine's
/// lease is.
public final class InMemoryPartitionedPushLog: Sendable {
    public let partitions: DevicePartitions
    private let state: Mutex<[Partition]>

    struct Partition {
        var entries: [Entry] = []
        var nextID: Int64 = 1
        var holder: String?
        /// Takings that fail before they write anything, as an engine's master failing over.
        var failingTakes = 0
        var observations: [[Observation]] = []
        /// nil: removed.
        var phones: [String: SimulatedDevice?] = [:]
    }

    struct Entry {
        var id: Int64
        var content: PartitionEntry<Int64>.Content
        var reader: String?
        var readAt: ContinuousClock.Instant?
    }

    public init(partitions: DevicePartitions) {
        self.partitions = partitions
        state = Mutex(Array(repeating: Partition(), count: partitions.count))
    }

    /// Appends pushes, each to its device's partition, one entry a partition, in order.
    public func append(_ pushes: [AcceptedPush]) {
        var grouped: [Int: [AcceptedPush]] = [:]
        for push in pushes {
            guard let deviceID = push.deviceID else { continue }
            grouped[partitions.partition(of: deviceID), default: []].append(push)
        }
        state.withLock { state in
            for (partition, pushes) in grouped.sorted(by: { $0.key < $1.key }) { state[partition].add(.pushes(pushes)) }
        }
    }

    /// Appends a broadcast to every partition.
    public func append(broadcast: AcceptedBroadcast) {
        state.withLock { state in
            for partition in state.indices { state[partition].add(.broadcast(broadcast)) }
        }
    }

    /// The partition's next `count` takings fail, writing nothing (a master failing over).
    public func failTakes(partition: Int, count: Int) {
        state.withLock { $0[partition].failingTakes = count }
    }

    public struct TakeFailed: Error {}

    /// Appends what another version wrote, `pushes` of it.
    public func appendUnreadable(partition: Int, pushes: Int) {
        state.withLock { $0[partition].add(.unreadable(pushes: pushes)) }
    }

    /// `name` holds `partition` from now on (a lease taken).
    public func hold(_ partition: Int, by name: String?) {
        state.withLock { $0[partition].holder = name }
    }

    /// The log as the reader `name` sees it.
    public func reader(_ name: String) -> Reader { Reader(log: self, name: name) }

    /// Entries appended and not taken.
    public func untaken(partition: Int) -> Int { state.withLock { $0[partition].entries.count } }

    /// What takings wrote of the partition's phones' observations, batch by batch.
    public func observations(partition: Int) -> [[Observation]] { state.withLock { $0[partition].observations } }

    /// The partition's phones as takings left them (nil: removed).
    public func phones(partition: Int) -> [String: SimulatedDevice?] { state.withLock { $0[partition].phones } }

    public struct Reader: PartitionedPushLog {
        let log: InMemoryPartitionedPushLog
        public let name: String

        public func readNew(partition: Int, count: Int) async throws -> [PartitionEntry<Int64>] {
            log.state.withLock { state in
                var read: [PartitionEntry<Int64>] = []
                for index in state[partition].entries.indices where read.count < count && state[partition].entries[index].reader == nil {
                    state[partition].entries[index].reader = name
                    state[partition].entries[index].readAt = .now
                    read.append(PartitionEntry(id: state[partition].entries[index].id, content: state[partition].entries[index].content))
                }
                return read
            }
        }

        public func claimAbandoned(partition: Int, minIdle: Duration, count: Int) async throws -> [PartitionEntry<Int64>] {
            let now = ContinuousClock.now
            return log.state.withLock { state in
                var claimed: [PartitionEntry<Int64>] = []
                for index in state[partition].entries.indices where claimed.count < count {
                    let entry = state[partition].entries[index]
                    guard entry.reader != nil, let readAt = entry.readAt, now - readAt >= minIdle else { continue }
                    state[partition].entries[index].reader = name
                    state[partition].entries[index].readAt = now
                    claimed.append(PartitionEntry(id: entry.id, content: entry.content))
                }
                return claimed
            }
        }

        public func take(partition: Int, ids: [Int64], observations: [Observation], phones: [PhoneChange]) async throws -> Bool {
            try log.state.withLock { state throws(TakeFailed) in
                if state[partition].failingTakes > 0 {
                    state[partition].failingTakes -= 1
                    throw TakeFailed()
                }
                if let holder = state[partition].holder, holder != name { return false }
                state[partition].holder = name
                let taken = Set(ids)
                state[partition].entries.removeAll { taken.contains($0.id) }
                if !observations.isEmpty { state[partition].observations.append(observations) }
                for change in phones {
                    switch change {
                    case .changed(let device): state[partition].phones[device.id] = .some(device)
                    case .removed(let id): state[partition].phones[id] = .some(nil)
                    }
                }
                return true
            }
        }
    }
}

extension InMemoryPartitionedPushLog.Partition {
    mutating func add(_ content: PartitionEntry<Int64>.Content) {
        entries.append(.init(id: nextID, content: content))
        nextID += 1
    }
}
