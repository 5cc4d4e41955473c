import Logging
import PushlabCore
import PushlabDelivery
import PushlabRedis
import PushlabSimulator
import PushlabStore

/// The engine's partition logs as one node reads them (`PartitionedPushLog`): it reads as its
/// own consumer of each partition's group, takes only while it holds the partition's lease (or
/// the lease is nobody's: then it becomes the node's), and writes what the phones observed in
/// the store's chunk format (`ObservationBlob`), the Notification Center entries they added
/// and removed (`EngineNotificationCenters`) and the phones changed otherwise as the store
/// writes them (`DeviceSnapshot`), to the partition's keys, in the taking's script.
public struct EnginePartitionLog: PartitionedPushLog {
    public let log: EnginePushLog
    public let node: String
    /// A taking renews a lease a failover lost, for this long.
    public let lease: Duration
    private let logger: Logger
    /// Batches of observations a partition's stream keeps (about): its phones' history, read by
    /// whichever node simulates them next.
    public static let keptBatches = 10_000

    public init(log: EnginePushLog, node: String, lease: Duration, logger: Logger = Logger(label: "pushlab.cluster")) {
        self.log = log
        self.node = node
        self.lease = lease
        self.logger = logger
    }

    var keys: EngineKeys { log.keys }

    public func readNew(partition: Int, count: Int) async throws -> [PartitionEntry<StreamID>] {
        do {
            return try await log.readNew(partition: partition, consumer: node, count: count).map(entry)
        } catch {
            guard error.code == "NOGROUP" else { throw error }
        }
        // A log no reader has read yet (a new world's): its group starts at its first entry.
        try await log.prepare(partitions: [partition])
        return try await log.readNew(partition: partition, consumer: node, count: count).map(entry)
    }

    public func claimAbandoned(partition: Int, minIdle: Duration, count: Int) async throws -> [PartitionEntry<StreamID>] {
        try await log.claimAbandoned(partition: partition, consumer: node, minIdle: minIdle, count: count).map(entry)
    }

    public func take(partition: Int, ids: [StreamID], observations: [Observation], phones: [PhoneChange]) async throws -> Bool {
        var writes: [EngineWrite] = []
        if !observations.isEmpty {
            writes.append(.append(stream: keys.observations(partition), fields: [("batch", ObservationBlob.encode(observations))], keep: Self.keptBatches))
        }
        var fields: [(String, [UInt8])] = []
        var removed: [String] = []
        for change in phones {
            switch change {
            case .changed(let device):
                // A phone that cannot be written keeps its last state in the engine; it is written
                // again with its next change.
                guard let snapshot = try? DeviceSnapshot.encode(device) else { continue }
                fields.append((device.id, snapshot))
            case .removed(let id):
                fields.append((id, []))
                removed.append(id)
            }
        }
        writes += EngineNotificationCenters.writes(hash: keys.notificationCenters(partition), observations: observations, removedDevices: removed)
        // One HSET a partition: a replica hears each command of the script (MULTI … EXEC).
        if !fields.isEmpty { writes.append(.setFields(hash: keys.devices(partition), fields: fields)) }
        return try await log.take(partition: partition, ids: ids, by: node, lease: lease, writes: writes)
    }

    /// A stream entry's pushes decoded (`AcceptedPushEncoding`), or its broadcast
    /// (`BroadcastJSON`). Pushes another version wrote are left out, said in the log; an entry
    /// with none left is unreadable.
    func entry(_ entry: EnginePushLog.Entry) -> PartitionEntry<StreamID> {
        if let bytes = entry.broadcast {
            guard let broadcast = BroadcastJSON.decode(bytes) else { return PartitionEntry(id: entry.id, content: .unreadable(pushes: 0)) }
            return PartitionEntry(id: entry.id, content: .broadcast(broadcast))
        }
        let decoded = entry.pushes.compactMap { try? AcceptedPushEncoding.decode($0).first }
        guard !decoded.isEmpty else { return PartitionEntry(id: entry.id, content: .unreadable(pushes: entry.pushes.count)) }
        if decoded.count < entry.pushes.count {
            logger.error(
                "A log entry cannot be read whole; \(entry.pushes.count - decoded.count) push(es) taken without delivery", metadata: ["id": "\(entry.id)"]
            )
        }
        return PartitionEntry(id: entry.id, content: .pushes(decoded))
    }
}
