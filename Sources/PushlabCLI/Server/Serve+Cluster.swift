import Foundation
import Logging
import PushlabCluster
import PushlabControl
import PushlabRedis
import Synchronization

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

/// The node a simulator is made for, before the node is made around it: until then, and until
/// the node gains partitions, it simulates no phone.
final class JoinedNode: Sendable {
    private let node = Mutex<ClusterNode?>(nil)

    func set(_ node: ClusterNode) { self.node.withLock { $0 = node } }

    @Sendable func simulates(_ deviceID: String) -> Bool {
        node.withLock { $0 }?.simulates(device: deviceID) ?? false
    }
}
