import PushlabCore
import PushlabRedis

/// Where a cluster keeps what its nodes share, in Redis Cluster keys. Everything about one
/// partition of devices carries the partition's hash tag (`{p17}`), so that it is on one master:
/// a push's log entry, its token's state and its rate-limit window are written in one round trip
/// by one script, atomically.
///
/// What the phones and pushes leave behind is of one world (`WorldGeneration`): a reset or a
/// scenario load starts another, under new key names, so that nothing of the old one is read.
public struct EngineKeys: Sendable {
    /// Every key starts with it, so that one Redis Cluster can hold more than one Pushlab world.
    public let prefix: String
    public let partitions: DevicePartitions
    /// The world the data keys (log, observations, devices, tokens, rates) are of.
    public let world: WorldGeneration

    public init(prefix: String = "pushlab", partitions: DevicePartitions, world: WorldGeneration = WorldGeneration()) {
        self.prefix = prefix
        self.partitions = partitions
        self.world = world
    }

    /// Where the current world's keys of the partition start.
    private func data(_ partition: Int) -> String { "\(prefix):w\(world.id):\(tag(partition))" }

    /// The pattern of every data key of world `id` (to delete a world no node uses any more).
    public func dataPattern(world id: String) -> String { "\(prefix):w\(id):*" }

    /// The hash tag of partition `partition`.
    public func tag(_ partition: Int) -> String { "{p\(partition)}" }

    /// The stream of pushes accepted for the partition's devices, in the order they were
    /// accepted; read by the partition's consumer group (`group`).
    public func log(_ partition: Int) -> String { "\(data(partition)):log" }

    /// What the partition's phones observed, a batch an entry (`PartitionDelivery`), in the
    /// order the phones observed it.
    public func observations(_ partition: Int) -> String { "\(data(partition)):observations" }

    /// The partition's phones as their node last wrote them, without their Notification Center
    /// entries: device id → its JSON, or empty for a phone that was removed.
    public func devices(_ partition: Int) -> String { "\(data(partition)):devices" }

    /// The Notification Center entries of the partition's phones, one field an entry
    /// (`EngineNotificationCenters`): written as the phones observe entries come and go, so that
    /// a phone's state (`devices`) is written only when something else of it changes.
    public func notificationCenters(_ partition: Int) -> String { "\(data(partition)):notification-centers" }

    /// The states of the partition's tokens that have one: token → `u:<ms>` (unregistered since)
    /// or `e:<ms>` (expired since). One hash a partition, so that one read answers for every
    /// token of a batch (`EngineIntake.accept`).
    public func tokenStates(_ partition: Int) -> String { "\(data(partition)):tokens" }

    /// A token's rate-limit window, `<start ms>:<count>`, expiring after two windows.
    public func rateWindow(_ token: String, partition: Int) -> String { "\(data(partition)):window:\(token)" }

    /// Who simulates the partition's phones now: a node's id, with a lease's expiry
    /// (`PartitionLeases`).
    public func owner(_ partition: Int) -> String { "\(prefix):\(tag(partition)):owner" }

    /// The live nodes, each scored with the engine's time of its last heartbeat
    /// (`NodeHeartbeats`).
    public var liveNodes: String { "\(prefix):{nodes}:live" }

    /// Where each live node's control API answers (same slot as `liveNodes`).
    public var nodeAddresses: String { "\(prefix):{nodes}:addresses" }

    /// The changes to the world made through any node's control API, in the order every node
    /// applies them (`WorldChanges`).
    public var changes: String { "\(prefix):{nodes}:changes" }

    /// Each node's last applied change (same slot as `changes`).
    public var appliedChanges: String { "\(prefix):{nodes}:applied" }

    /// The current world's id, and the last scenario load's change (same slot as `changes`).
    public var currentWorld: String { "\(prefix):{nodes}:world" }

    /// The number of the last `device-N` the nodes gave a phone added without an id, in the
    /// current world.
    public var deviceNumbers: String { "\(prefix):w\(world.id):{nodes}:device-numbers" }

    /// A counted fault rule's `matched` and `fired`, every node's requests counted, in the
    /// current world (whose rules the nodes number alike).
    public func faultCounts(_ rule: String) -> String { "\(prefix):w\(world.id):{nodes}:fault:\(rule)" }

    /// The consumer group of every partition's log: the nodes that simulate its phones.
    public var group: String { "\(prefix)-nodes" }

    /// The hash slot each partition's keys are in.
    public func slot(_ partition: Int) -> Int { HashSlot.of(tag(partition)) }
}
