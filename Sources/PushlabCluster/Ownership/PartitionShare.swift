import PushlabCore

/// Which live node simulates which partition of phones: rendezvous hashing (highest random
/// weight). Every node computes it alone, from the list of live nodes the engine keeps
/// (`NodeHeartbeats`), and they agree; when a node joins or dies only the partitions it wins or
/// held move, a fair share each. The leases (`PartitionLeases`) make sure that no two nodes
/// simulate one partition while their lists differ for a moment.
public struct PartitionShare: Sendable, Equatable {
    public let partitions: DevicePartitions
    /// Sorted, without repeats.
    public let nodes: [String]

    public init(partitions: DevicePartitions, nodes: some Sequence<String>) {
        self.partitions = partitions
        self.nodes = Array(Set(nodes)).sorted()
    }

    /// The node that should simulate `partition`; nil when no node is live.
    public func owner(of partition: Int) -> String? {
        var best: (weight: UInt64, node: String)?
        for node in nodes {
            let weight = Self.weight(node: node, partition: partition)
            if best == nil || weight > best!.weight { best = (weight, node) }
        }
        return best?.node
    }

    /// The partitions `node` should simulate, in order.
    public func partitions(of node: String) -> [Int] {
        (0..<partitions.count).filter { owner(of: $0) == node }
    }

    /// A stable hash of the pair, mixed by SplitMix64 so that near names and numbers spread.
    static func weight(node: String, partition: Int) -> UInt64 {
        var hash = FNV1a(node)
        hash.add(0)
        hash.add(String(partition))
        var mixer = SplitMix64(seed: hash.state)
        return mixer.next()
    }
}
