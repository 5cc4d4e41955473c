import Foundation
import Logging
import PushlabCluster
import PushlabControl
import PushlabCore
import PushlabRuntime
import PushlabRedis

/// `pushlab serve --cluster`: joining the engine, the node's name, and what the banner says.
extension Serve {
    /// Nil without `--cluster`; a readable failure when the engine cannot be joined or runs on
    /// another clock.
    func joinCluster(_ seeds: [RedisEndpoint]?, durable: Bool, manualStart: EpochMilliseconds?, logger: Logger) async throws -> ClusterMembership? {
        guard let seeds else { return nil }
        let settings = ClusterMembership.Settings(
            seeds: seeds, nodeID: nodeID ?? Self.defaultNodeID, partitions: clusterPartitions ?? ClusterMembership.Settings.defaultPartitions, expectedNodes: clusterExpect ?? 1, durable: durable
        )
        do {
            return try await ClusterMembership.join(settings, manualStart: manualStart, logger: logger)
        } catch .engine(let error) {
            throw CLIFailure("\(error.description). Start the Redis Cluster first (make cluster starts one on this machine), or check the addresses.")
        } catch {
            throw CLIFailure(error.description)
        }
    }

    /// Unique among the nodes of one machine, and readable in the banner and the logs.
    static var defaultNodeID: String { "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)" }

    /// `simulated`: the phones this node made, of the scenario's `total`.
    static func clusterLines(_ engine: ClusterEngine, _ node: ClusterNode, simulated: Int, of total: Int) -> [String] {
        let partitions = engine.keys.partitions.count
        let owned = node.owned.count
        let waiting = node.isWaitingForNodes ? ["  waiting      for \(node.expectedNodes) live nodes (--cluster-expect) before taking its share: \(node.nodes.count) so far"] : []
        return [
            "Cluster on Redis \(engine.seeds.map { "redis://\($0)" }.joined(separator: ",")) (\(partitions) partitions of phones\(engine.isDurable ? "; durable: a push is acknowledged once its log entry is on a replica" : ""))",
            "  nodes        \(node.nodes.joined(separator: ", "))",
            "  this node    \(node.id): \(owned) of \(partitions) partitions, \(simulated) of the scenario's \(total) phones made here; the others are made and simulated by their nodes",
        ] + waiting
    }
}

