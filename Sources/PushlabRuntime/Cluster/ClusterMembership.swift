import Logging
import PushlabCluster
import PushlabControl
import PushlabCore
import PushlabRedis
import PushlabScenario
import Synchronization

/// A Pushlab joining a cluster (`pushlab serve --cluster`, or `PushlabTestServer` with a
/// cluster): the engine joined and the clock agreed before the cores are made, the cores made
/// for a node (`coresOptions`), the node made around them (`makeNode`), started once the
/// runtime listens, and stopped before it.
public final class ClusterMembership: Sendable {
    public struct Settings: Sendable {
        public var seeds: [RedisEndpoint]
        /// This node's name, unique in the cluster.
        public var nodeID: String
        /// The partition count the cluster's first node sets; later nodes take the cluster's.
        public var partitions: Int
        /// How many live nodes this one waits for before it takes a share of the phones.
        public var expectedNodes: Int
        /// A push is acknowledged once its log entry is on a replica too.
        public var durable: Bool
        /// The engine's keys start with it: clusters with other prefixes share a Redis unseen.
        public var keyPrefix: String

        /// 24: an even share for 2, 3, 4, 6, 8 or 12 nodes, and few partitions a master. Every
        /// intake call appends an entry to each of its partitions' logs (an `XADD`, an `HMGET`
        /// and a replica's `XCLAIM`): against 64, 1.2 engine commands a push instead of 2.3
        /// (Benchmarks/results/2026-12-04-engine-costs.md).
        public static let defaultPartitions = 24

        public init(
            seeds: [RedisEndpoint], nodeID: String, partitions: Int = defaultPartitions, expectedNodes: Int = 1, durable: Bool = false,
            keyPrefix: String = "pushlab"
        ) {
            self.seeds = seeds
            self.nodeID = nodeID
            self.partitions = partitions
            self.expectedNodes = expectedNodes
            self.durable = durable
            self.keyPrefix = keyPrefix
        }
    }

    public let engine: ClusterEngine
    public let settings: Settings
    /// The manual clock's start the cluster runs on (nil: real time), agreed with its first node.
    public let manualStart: EpochMilliseconds?
    private let logger: Logger
    private let joined = JoinedNode()

    private init(engine: ClusterEngine, settings: Settings, manualStart: EpochMilliseconds?, logger: Logger) {
        self.engine = engine
        self.settings = settings
        self.manualStart = manualStart
        self.logger = logger
    }

    /// Joins the cluster at `settings.seeds`: `manualStart` is this node's wish (nil: real time),
    /// which must match the cluster's mode; the cluster's start is taken.
    public static func join(_ settings: Settings, manualStart: EpochMilliseconds?, logger: Logger) async throws(JoinFailure) -> ClusterMembership {
        let engine: ClusterEngine
        do {
            engine = try await ClusterEngine.connect(
                seeds: settings.seeds, prefix: settings.keyPrefix, partitions: settings.partitions, durable: settings.durable, logger: logger
            )
        } catch {
            throw .engine(error)
        }
        do {
            let agreed = try await engine.agreeOnClock(manualStart: manualStart)
            return ClusterMembership(engine: engine, settings: settings, manualStart: agreed, logger: logger)
        } catch {
            await engine.close()
            throw .clock(error)
        }
    }

    /// Why a node did not join.
    public enum JoinFailure: Error, CustomStringConvertible {
        /// The engine cannot be reached or read.
        case engine(ClusterEngineError)
        /// The cluster runs on another clock than this node asked for.
        case clock(ClusterEngineError)

        public var description: String {
            switch self {
            case .engine(let error), .clock(let error): error.description
            }
        }
    }

    /// What `PushlabCores` needs to be a node's: the phones' tokens every node agrees on, the
    /// engine's sink, and this node's share of the phones (none until it has one).
    public func coresOptions(for scenario: Scenario) -> (tokenSeed: UInt64, sink: any PushSink, simulatedHere: @Sendable (String) -> Bool) {
        (UInt64(bitPattern: FNV1a(scenario.fingerprint).value), engine.sink, joined.simulates)
    }

    /// The node around `cores` (made with `coresOptions`): its phones get their pushes through
    /// the cores' delivery pipeline, its control API routes to the other nodes, its channels
    /// and counted faults are the cluster's. Once.
    public func makeNode(cores: PushlabCores) -> ClusterNode {
        let node = engine.makeNode(id: settings.nodeID, pipeline: cores.delivery, expectedNodes: settings.expectedNodes, logger: logger)
        cores.joinCluster(as: node.id, routing: NodeRouting(node: node, engine: engine))
        joined.set(node)
        engine.sink.publishChannels { await node.publish(channel: $0) }
        cores.faults.count(in: engine.faultCounts)
        return node
    }

    /// The node made by `makeNode`.
    public var node: ClusterNode? { joined.node }

    /// Once `runtime` listens: the world as the cluster has changed it, then the node takes its
    /// share, its gained phones' history going to the control API.
    public func start(_ runtime: PushlabRuntime, controlToken: String?) async {
        guard let node else { return }
        let controlAPI = runtime.controlAPI
        if let address = runtime.controlServer?.url { await controlAPI?.startApplyingClusterChanges(address: address, token: controlToken) }
        await node.start(controlAddress: runtime.controlServer?.url) { history, devices in controlAPI?.adopt(history, replacing: devices) }
    }

    /// Before the runtime stops: the node's phones go to the others (its last takings written,
    /// its leases given up), then the engine's connections close.
    public func stop(_ runtime: PushlabRuntime) async {
        await runtime.controlAPI?.stopApplyingClusterChanges()
        await node?.stop()
        await engine.close()
    }
}

/// The node a simulator is made for, before the node is made around it: until then, and until
/// the node gains partitions, it simulates no phone.
final class JoinedNode: Sendable {
    private let held = Mutex<ClusterNode?>(nil)

    func set(_ node: ClusterNode) { held.withLock { $0 = node } }

    var node: ClusterNode? { held.withLock { $0 } }

    @Sendable func simulates(_ deviceID: String) -> Bool {
        held.withLock { $0 }?.simulates(device: deviceID) ?? false
    }
}
