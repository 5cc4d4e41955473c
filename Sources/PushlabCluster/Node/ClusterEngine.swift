import Logging
import PushlabCore
import PushlabDelivery
import PushlabRedis
import PushlabSimulator

/// A node's connection to the engine a cluster shares (`pushlab serve --cluster`): the Redis
/// Cluster client, the cluster's keys (its partition count agreed in the engine by the first
/// node), the sink the APNs rules hand what they accept to, and the counter of fault rules.
/// `makeNode` then puts the node's phones in.
public final class ClusterEngine: Sendable {
    public let seeds: [RedisEndpoint]
    public let client: RedisClusterClient
    public let keys: EngineKeys
    public let sink: EnginePushSink
    public let faultCounts: EngineFaultCounts
    /// `--durable`: a push is acknowledged once its log entry is also on a replica.
    public let isDurable: Bool

    private init(seeds: [RedisEndpoint], client: RedisClusterClient, keys: EngineKeys, sink: EnginePushSink, logger: Logger, isDurable: Bool) {
        self.seeds = seeds
        self.client = client
        self.keys = keys
        self.sink = sink
        faultCounts = EngineFaultCounts(client: client, keys: keys, logger: logger)
        self.isDurable = isDurable
        changesReader = RedisBlockingReader(client: client)
    }

    /// A new phone's id, `device-N`: no node gives it again in this world.
    public func newDeviceID() async throws(RedisError) -> String {
        let answer = try await client.send(RESPCommand("INCR", RESPArgument(keys.deviceNumbers)), key: keys.deviceNumbers)
        guard let number = answer.integer else { throw RedisError(.protocolError, "INCR \(keys.deviceNumbers) answered \(answer)") }
        return "device-\(number)"
    }

    /// `redis://host:port[,host:port…]` (the scheme may be left out, and repeated per address).
    public static func seeds(_ text: String) throws(ClusterEngineError) -> [RedisEndpoint] {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var seeds: [RedisEndpoint] = []
        for part in parts {
            guard let endpoint = RedisEndpoint(part) else {
                throw ClusterEngineError("--cluster: \(part.isEmpty ? "an empty address" : part) is no Redis address; give redis://host:port[,host:port…]")
            }
            seeds.append(endpoint)
        }
        guard !seeds.isEmpty else { throw ClusterEngineError("--cluster needs at least one address: redis://host:port[,host:port…]") }
        return seeds
    }

    /// Connects, reads the slot map, and agrees on the partition count: the first node sets it
    /// (`partitions`), every later one takes the engine's.
    public static func connect(
        seeds: [RedisEndpoint], prefix: String = "pushlab", partitions: Int, durable: Bool, logger: Logger = Logger(label: "pushlab.cluster")
    ) async throws(ClusterEngineError) -> ClusterEngine {
        let client = RedisClusterClient(seeds: seeds)
        do throws(RedisError) {
            try await client.start()
            let shape = "\(prefix):{nodes}:partitions"
            let answers = try await client.pipeline(
                [RESPCommand("SET", RESPArgument(shape), RESPArgument(partitions), "NX"), RESPCommand("GET", RESPArgument(shape))],
                slot: HashSlot.of(shape)
            )
            guard let agreed = answers.last?.text.flatMap(Int.init), agreed >= 1 else {
                throw RedisError(.protocolError, "the cluster's partition count \(shape) is \(answers.last.map { "\($0)" } ?? "missing")")
            }
            // A node joining goes on in the cluster's world, which its changes then catch up with.
            let world = try await WorldChanges(client: client, keys: EngineKeys(prefix: prefix, partitions: DevicePartitions(count: agreed))).currentWorld()
            let keys = EngineKeys(prefix: prefix, partitions: DevicePartitions(count: agreed), world: WorldGeneration(world))
            let intake = EngineIntake(client: client, keys: keys, replicas: durable ? 1 : 0)
            return ClusterEngine(
                seeds: seeds, client: client, keys: keys, sink: EnginePushSink(intake: intake, logger: logger), logger: logger, isDurable: durable
            )
        } catch {
            await client.close()
            throw ClusterEngineError("The cluster at \(seeds.map(\.description).joined(separator: ",")) cannot be joined: \(error.description)")
        }
    }

    /// This node, simulating its share of `simulator`'s phones; started by the caller.
    /// `expectedNodes`: how many nodes it waits for before it takes any phones (at most a minute).
    /// Its phones are `pipeline`'s simulator's, and get their pushes through it.
    public func makeNode(id: String, pipeline: DeliveryPipeline, expectedNodes: Int = 1, logger: Logger = Logger(label: "pushlab.cluster")) -> ClusterNode {
        let lease = Duration.seconds(3)
        let delivery = PartitionDelivery(node: id, log: EnginePushLog(client: client, keys: keys), pipeline: pipeline, lease: lease, logger: logger)
        // A dead node's phones move within about three seconds: its leases run out 3 s after its
        // last renewal, and the others beat (and take what is free) twice a second. Leases are
        // renewed every second: a busy node that renews late by less than 2 s keeps its phones.
        return ClusterNode(
            id: id, delivery: delivery, heartbeats: NodeHeartbeats(client: client, keys: keys, timeout: .seconds(3)),
            leases: PartitionLeases(client: client, keys: keys, duration: lease), beatInterval: .milliseconds(500),
            worldChanges: changes, expectedNodes: expectedNodes, logger: logger
        )
    }

    /// The clock the cluster's nodes share: its first node's (`manualStart` nil: real time; or a
    /// manual clock's start), which every later node must match in mode and takes the start of.
    /// Clock changes then reach every node as world changes.
    public func agreeOnClock(manualStart: EpochMilliseconds?) async throws(ClusterEngineError) -> EpochMilliseconds? {
        let key = "\(keys.prefix):{nodes}:clock"
        let proposed = manualStart.map { "manual:\($0)" } ?? "real"
        let agreed: String
        do throws(RedisError) {
            let answers = try await client.pipeline(
                [RESPCommand("SET", RESPArgument(key), RESPArgument(proposed), "NX"), RESPCommand("GET", RESPArgument(key))], slot: HashSlot.of(key)
            )
            guard let text = answers.last?.text else { throw RedisError(.protocolError, "the cluster's clock \(key) is missing") }
            agreed = text
        } catch {
            throw ClusterEngineError("The cluster's clock could not be read: \(error.description)")
        }
        if agreed == "real" {
            guard manualStart == nil else { throw ClusterEngineError("The cluster runs on real time: start this node without --clock manual") }
            return nil
        }
        guard agreed.hasPrefix("manual:"), let start = EpochMilliseconds(agreed.dropFirst("manual:".count)) else {
            throw ClusterEngineError("The cluster's clock \(key) reads \(agreed), which this Pushlab cannot use")
        }
        guard manualStart != nil else { throw ClusterEngineError("The cluster runs on a manual clock: start this node with --clock manual too") }
        return start
    }

    /// The changes to the world made through the nodes' control APIs.
    public var changes: WorldChanges { WorldChanges(client: client, keys: keys) }

    /// The connection this node waits on for the next change to the world (`WorldChanges.wait`).
    public let changesReader: RedisBlockingReader

    public func close() async {
        await changesReader.close()
        await client.close()
    }
}

/// Joining a cluster failed, in words for whoever ran `pushlab serve --cluster`.
public struct ClusterEngineError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
