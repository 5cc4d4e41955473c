@testable import PushlabCluster
import PushlabCore
import Testing

/// Rendezvous hashing: every node computes the same owner alone, shares are fair, and a node's
/// coming or going moves only the partitions it wins or held.
struct PartitionShareTests {
    private let partitions = DevicePartitions(count: 256)

    @Test func everyPartitionHasOneOwnerWhateverTheOrderOfTheList() {
        let share = PartitionShare(partitions: partitions, nodes: ["node-b", "node-a", "node-c"])
        let reordered = PartitionShare(partitions: partitions, nodes: ["node-c", "node-b", "node-a", "node-b"])
        #expect(share == reordered, "the same nodes, however listed")
        let owned = share.nodes.map { share.partitions(of: $0) }
        #expect(owned.flatMap { $0 }.sorted() == Array(0..<256), "each partition once")
        // Fair within a third of the even share (85 each).
        #expect(owned.allSatisfy { (57...114).contains($0.count) }, "\(owned.map(\.count))")
    }

    @Test func aNodeThatDiesLosesOnlyItsOwnPartitions() {
        let before = PartitionShare(partitions: partitions, nodes: ["node-a", "node-b", "node-c"])
        let after = PartitionShare(partitions: partitions, nodes: ["node-a", "node-c"])
        for partition in 0..<256 where before.owner(of: partition) != "node-b" {
            #expect(after.owner(of: partition) == before.owner(of: partition), "partition \(partition) stays")
        }
        let orphaned = before.partitions(of: "node-b")
        let toA = orphaned.filter { after.owner(of: $0) == "node-a" }.count
        #expect(toA > 0 && toA < orphaned.count, "node-b's \(orphaned.count) are spread over both (\(toA) to node-a)")
    }

    @Test func aNodeThatJoinsTakesOnlyWhatItWins() {
        let before = PartitionShare(partitions: partitions, nodes: ["node-a", "node-b"])
        let after = PartitionShare(partitions: partitions, nodes: ["node-a", "node-b", "node-c"])
        let moved = (0..<256).filter { before.owner(of: $0) != after.owner(of: $0) }
        #expect(moved.allSatisfy { after.owner(of: $0) == "node-c" })
        #expect(moved.count == after.partitions(of: "node-c").count)
    }

    @Test func noNodesOwnNothing() {
        let share = PartitionShare(partitions: partitions, nodes: [])
        #expect(share.owner(of: 0) == nil)
        #expect(PartitionShare(partitions: DevicePartitions(count: 1), nodes: ["solo"]).partitions(of: "solo") == [0])
    }
}
