import PushlabRedis

/// Which node simulates a partition's phones: a lease in the engine (`EngineKeys.owner`), taken
/// only when free (`SET NX PX`), renewed by its holder, and gone `duration` after a node stops
/// renewing it. The share (`PartitionShare`) says which partitions a node should want; the lease
/// makes sure that, while two nodes' lists of live nodes differ, only one simulates a partition.
/// A node's taking of pushes checks the lease in the same script (`EnginePushLog.take`), so a
/// node that lost its lease unawares cannot take what another now owns.
public struct PartitionLeases: Sendable {
    public let keys: EngineKeys
    public let duration: Duration
    private let client: RedisClusterClient

    public init(client: RedisClusterClient, keys: EngineKeys, duration: Duration = .seconds(3)) {
        self.client = client
        self.keys = keys
        self.duration = duration
    }

    /// Takes or renews `partition` for `node`: true when `node` holds it for `duration` from now.
    public func hold(_ partition: Int, for node: String) async throws(RedisError) -> Bool {
        let (answer, _) = try await Script.holdLease.run(
            on: client, slot: keys.slot(partition), keys: [keys.owner(partition)],
            arguments: [RESPArgument(node), RESPArgument(Int64(duration / .milliseconds(1)))]
        )
        return answer.integer == 1
    }

    /// Gives `partition` up, if `node` holds it.
    public func release(_ partition: Int, by node: String) async throws(RedisError) {
        _ = try await Script.releaseLease.run(on: client, slot: keys.slot(partition), keys: [keys.owner(partition)], arguments: [RESPArgument(node)])
    }

    /// The node holding `partition`, if any.
    public func holder(of partition: Int) async throws(RedisError) -> String? {
        try await client.send(RESPCommand("GET", RESPArgument(keys.owner(partition))), slot: keys.slot(partition)).text
    }
}

extension Script {
    /// KEYS: the lease. ARGV: node, duration (ms). 1 when the node holds it now.
    static let holdLease = Script(source: """
        if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          return 1
        end
        return 0
        """)

    /// KEYS: the lease. ARGV: node.
    static let releaseLease = Script(source: """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """)
}
