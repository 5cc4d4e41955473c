import Foundation
import Logging
import PushlabCluster
import PushlabRedis
import PushlabRuntime

extension PushlabTestServer {
    /// A test server as a node of a Pushlab cluster (`pushlab serve --cluster`, docs/CLUSTER.md),
    /// on a Redis Cluster the test started. Nodes with the same `keyPrefix` and scenario are one
    /// cluster: each simulates its share of the scenario's phones, and a push reaches its phone
    /// on whichever node simulates it. Phones added with `addDevice` are this node's alone, and
    /// the clock moves for this node only: change the cluster's world and clock through a
    /// node's control API (`controlURL`), as the nodes of `pushlab serve` do.
    public struct ClusterNode: Sendable {
        /// `host:port` of one or more of the Redis Cluster's servers.
        public var seeds: [String]
        public var nodeID: String
        /// How many nodes the node waits for before it takes a share of the phones.
        public var expectedNodes: Int
        /// The partitions of phones, set by the cluster's first node.
        public var partitions: Int
        /// The engine's keys start with it: one Redis can hold many test clusters.
        public var keyPrefix: String
        /// A push is acknowledged once its log entry is on a replica too (`--durable`).
        public var durable: Bool

        public init(
            seeds: [String], nodeID: String = "test-node", expectedNodes: Int = 1, partitions: Int = 16,
            keyPrefix: String = "pushlab-test-\(UInt32.random(in: 0...UInt32.max))", durable: Bool = false
        ) {
            self.seeds = seeds
            self.nodeID = nodeID
            self.expectedNodes = expectedNodes
            self.partitions = partitions
            self.keyPrefix = keyPrefix
            self.durable = durable
        }

        func join(manualStart: EpochMilliseconds, logger: Logger) async throws -> ClusterMembership {
            let endpoints = try seeds.map { seed in
                guard let endpoint = RedisEndpoint(seed) else { throw PushlabTestingError("\(seed) is not a Redis server's host:port") }
                return endpoint
            }
            guard !endpoints.isEmpty else { throw PushlabTestingError("A cluster node needs at least one Redis server (seeds)") }
            guard expectedNodes >= 1, (1...16_384).contains(partitions) else {
                throw PushlabTestingError("A cluster node expects 1 or more nodes and 1...16384 partitions, not \(expectedNodes) and \(partitions)")
            }
            let settings = ClusterMembership.Settings(
                seeds: endpoints, nodeID: nodeID, partitions: partitions, expectedNodes: expectedNodes, durable: durable, keyPrefix: keyPrefix
            )
            do {
                return try await ClusterMembership.join(settings, manualStart: manualStart, logger: logger)
            } catch {
                throw PushlabTestingError("The test server cannot join the cluster: \(error.description)")
            }
        }

        /// Starts the node in `runtime` and waits until it has its share of the phones, or waits
        /// for the other nodes it expects (which start after it).
        static func start(_ membership: ClusterMembership, runtime: PushlabRuntime) async throws {
            await membership.start(runtime, controlToken: nil)
            guard let node = membership.node else { return }
            let deadline = ContinuousClock.now + .seconds(10)
            while node.owned.isEmpty, !node.isWaitingForNodes {
                guard ContinuousClock.now < deadline else {
                    await membership.stop(runtime)
                    try? await runtime.shutdown()
                    throw PushlabTestingError("The cluster node \(node.id) took no share of the phones within 10 s")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// The control API's `http://host:port`: a cluster node's only (the way to change the world
    /// and the clock of every node).
    public var controlURL: URL? { runtime.controlServer.flatMap { URL(string: $0.url) } }

    /// The cluster node this server is, nil for a Pushlab of its own.
    public var clusterNodeID: String? { membership?.node?.id }
}
