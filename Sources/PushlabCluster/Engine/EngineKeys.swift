import PushlabCore
import PushlabRedis

/// Where a cluster keeps what its nodes share, in Redis Cluster keys. Everything about one
/// partition of devices carries the partition's hash tag (`{p17}`), so that it is on one master:
/// a push's log entry, its token's state and its rate-limit window are written in one round trip
/// by one script, atomically.
public struct EngineKeys: Sendable, Equatable {
    /// Every key starts with it, so that one Redis Cluster can hold more than one Pushlab world.
    public let prefix: String
    public let partitions: DevicePartitions

    public init(prefix: String = "pushlab", partitions: DevicePartitions) {
        self.prefix = prefix
        self.partitions = partitions
    }

    /// The hash tag of partition `partition`.
    public func tag(_ partition: Int) -> String { "{p\(partition)}" }

    /// The stream of pushes accepted for the partition's devices, in the order they were
    /// accepted; read by the partition's consumer group (`group`).
    public func log(_ partition: Int) -> String { "\(prefix):\(tag(partition)):log" }

    /// What the partition's phones observed, a batch an entry (`PartitionDelivery`), in the
    /// order the phones observed it.
    public func observations(_ partition: Int) -> String { "\(prefix):\(tag(partition)):observations" }

    /// The partition's phones as their node last wrote them: device id → its JSON, or empty for
    /// a phone that was removed.
    public func devices(_ partition: Int) -> String { "\(prefix):\(tag(partition)):devices" }

    /// A token's state: unregistered, and since when.
    public func tokenState(_ token: String, partition: Int) -> String { "\(prefix):\(tag(partition)):token:\(token)" }

    /// A token's rate-limit window: its start and count.
    public func rateWindow(_ token: String, partition: Int) -> String { "\(prefix):\(tag(partition)):rate:\(token)" }

    /// Who simulates the partition's phones now: a node's id, with a lease's expiry
    /// (`PartitionLeases`).
    public func owner(_ partition: Int) -> String { "\(prefix):\(tag(partition)):owner" }

    /// The live nodes, each scored with the engine's time of its last heartbeat
    /// (`NodeHeartbeats`).
    public var liveNodes: String { "\(prefix):{nodes}:live" }

    /// Where each live node's control API answers (same slot as `liveNodes`).
    public var nodeAddresses: String { "\(prefix):{nodes}:addresses" }

    /// The consumer group of every partition's log: the nodes that simulate its phones.
    public var group: String { "\(prefix)-nodes" }

    /// The hash slot each partition's keys are in.
    public func slot(_ partition: Int) -> Int { HashSlot.of(tag(partition)) }
}
