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
            arguments: arguments(for: node)
        )
        return answer.integer == 1
    }

    /// Takes or renews each of `partitions` for `node`, in one pipeline per master (a node's
    /// share renewed each second cost one round trip a partition): whether `node` holds each for
    /// `duration` from now, or the error of one the engine did not answer (its master failing
    /// over). A call the pipeline could not make (a slot that moved) is made again alone.
    public func hold(_ partitions: [Int], for node: String) async -> [Int: Result<Bool, RedisError>] {
        let map = client.slotMap
        var byMaster: [RedisEndpoint?: [Int]] = [:]
        for partition in partitions { byMaster[map?.master(ofSlot: keys.slot(partition)), default: []].append(partition) }
        return await withTaskGroup(of: [Int: Result<Bool, RedisError>].self) { group in
            for (master, partitions) in byMaster {
                group.addTask { [self] in
                    var held: [Int: Result<Bool, RedisError>] = [:]
                    var alone = partitions
                    if master != nil, let answers = try? await Script.holdLease.runAll(
                        on: client, slot: keys.slot(partitions[0]), calls: partitions.map { ([keys.owner($0)], arguments(for: node)) }
                    ) {
                        alone = []
                        for (partition, answer) in zip(partitions, answers) {
                            if let integer = answer.integer { held[partition] = .success(integer == 1) } else { alone.append(partition) }
                        }
                    }
                    for partition in alone {
                        do throws(RedisError) {
                            held[partition] = .success(try await hold(partition, for: node))
                        } catch {
                            held[partition] = .failure(error)
                        }
                    }
                    return held
                }
            }
            var held: [Int: Result<Bool, RedisError>] = [:]
            for await part in group { held.merge(part) { first, _ in first } }
            return held
        }
    }

    private func arguments(for node: String) -> [RESPArgument] {
        [RESPArgument(node), RESPArgument(Int64(duration / .milliseconds(1)))]
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
    /// KEYS: the lease. ARGV: node, duration (ms). 1 when the node holds it now. A renewal (the
    /// common case) reads and extends, two calls; only a free lease is set.
    static let holdLease = Script(source: """
        local holder = redis.call('GET', KEYS[1])
        if holder == ARGV[1] then
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          return 1
        end
        if holder then return 0 end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        return 1
        """)

    /// KEYS: the lease. ARGV: node.
    static let releaseLease = Script(source: """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """)
}
