import Foundation
import Logging
import PushlabCluster
import PushlabControl
import PushlabRedis

/// `pushlab serve --cluster`: joining the engine, the node's name, and what the banner says.
extension Serve {
    /// Nil without `--cluster`; a readable failure when the engine cannot be joined.
    func joinCluster(_ seeds: [RedisEndpoint]?, durable: Bool, logger: Logger) async throws -> ClusterEngine? {
        guard let seeds else { return nil }
        do {
            return try await ClusterEngine.connect(seeds: seeds, partitions: clusterPartitions ?? 64, durable: durable, logger: logger)
        } catch {
            throw CLIFailure("\(error.description). Start the Redis Cluster first (make cluster starts one on this machine), or check the addresses.")
        }
    }

    /// Unique among the nodes of one machine, and readable in the banner and the logs.
    static var defaultNodeID: String { "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)" }

    static func clusterLines(_ engine: ClusterEngine, _ node: ClusterNode, devices: Int) -> [String] {
        let partitions = engine.keys.partitions.count
        let owned = node.owned.count
        let phones = partitions == 0 ? 0 : devices * owned / partitions
        return [
            "Cluster on Redis \(engine.seeds.map { "redis://\($0)" }.joined(separator: ",")) (\(partitions) partitions of phones\(engine.isDurable ? "; durable: a push is acknowledged once its log entry is on a replica" : ""))",
            "  nodes        \(node.nodes.joined(separator: ", "))",
            "  this node    \(node.id): \(owned) of \(partitions) partitions, about \(phones) of the \(devices) phones; the others are simulated by their nodes",
        ]
    }
}
