import PushlabCore

/// Which live node simulates which partition of phones: rendezvous hashing (highest random
/// weight) with bounded loads. Every node computes it alone, from the list of live nodes the
/// engine keeps (`NodeHeartbeats`), and they agree. The pairs of a partition and a node are
/// taken in the order of their weights, each partition going to the first node of its pairs
/// that has room: no node gets more than its even share rounded up. Plain rendezvous hashing
/// moved nothing but what a node that joined or died won or held, but its shares were as
/// uneven as chance: 2, 6 and 4 of 12 partitions, 6, 11 and 7 of 24. With few partitions a
/// master (each is an entry of every intake call, Benchmarks/results/2026-12-04-engine-costs.md)
/// the busiest node set the pace. Bounded, a node that dies still hands its partitions to the
/// others, and the others' partitions mostly stay; a few may move between them to even the
/// shares out. The leases (`PartitionLeases`) make sure that no two nodes simulate one
/// partition while their lists differ for a moment.
public struct PartitionShare: Sendable, Equatable {
    public let partitions: DevicePartitions
    /// Sorted, without repeats.
    public let nodes: [String]
    /// Each partition's node, by partition.
    private let owners: [String?]

    public init(partitions: DevicePartitions, nodes: some Sequence<String>) {
        self.partitions = partitions
        self.nodes = Array(Set(nodes)).sorted()
        owners = Self.assign(partitions.count, to: self.nodes)
    }

    /// The node that should simulate `partition`; nil when no node is live.
    public func owner(of partition: Int) -> String? {
        owners.indices.contains(partition) ? owners[partition] : nil
    }

    /// The partitions `node` should simulate, in order.
    public func partitions(of node: String) -> [Int] {
        owners.indices.filter { owners[$0] == node }
    }

    /// The most partitions a node gets: the even share, rounded up.
    public var largestShare: Int { nodes.isEmpty ? 0 : (partitions.count + nodes.count - 1) / nodes.count }

    private static func assign(_ count: Int, to nodes: [String]) -> [String?] {
        guard !nodes.isEmpty else { return Array(repeating: nil, count: count) }
        let room = (count + nodes.count - 1) / nodes.count
        var pairs: [(weight: UInt64, partition: Int32, node: Int32)] = []
        pairs.reserveCapacity(count * nodes.count)
        for partition in 0..<count {
            for (index, node) in nodes.enumerated() {
                pairs.append((weight(node: node, partition: partition), Int32(partition), Int32(index)))
            }
        }
        // Heaviest first; ties (a 64-bit hash's) by partition, then node, so that all agree.
        pairs.sort { ($0.weight, $1.partition, $1.node) > ($1.weight, $0.partition, $0.node) }
        var owners = [Int32](repeating: -1, count: count)
        var loads = [Int](repeating: 0, count: nodes.count)
        var left = count
        for pair in pairs where owners[Int(pair.partition)] < 0 && loads[Int(pair.node)] < room {
            owners[Int(pair.partition)] = pair.node
            loads[Int(pair.node)] += 1
            left -= 1
            if left == 0 { break }
        }
        return owners.map { $0 < 0 ? nil : nodes[Int($0)] }
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
