@testable import PushlabCluster
import PushlabCore
import Testing

/// Rendezvous hashing with bounded loads: every node computes the same owner alone, no node
/// gets more than its even share rounded up, and a node's coming or going moves its own
/// partitions and few others.
struct PartitionShareTests {
    private let partitions = DevicePartitions(count: 256)

    @Test func everyPartitionHasOneOwnerWhateverTheOrderOfTheList() {
        let share = PartitionShare(partitions: partitions, nodes: ["node-b", "node-a", "node-c"])
        let reordered = PartitionShare(partitions: partitions, nodes: ["node-c", "node-b", "node-a", "node-b"])
        #expect(share == reordered, "the same nodes, however listed")
        let owned = share.nodes.map { share.partitions(of: $0) }
        #expect(owned.flatMap { $0 }.sorted() == Array(0..<256), "each partition once")
        #expect(owned.allSatisfy { $0.count <= 86 }, "none over the even share, rounded up: \(owned.map(\.count))")
    }

    @Test(arguments: [(12, 3), (24, 3), (24, 8), (64, 3), (16, 5), (7, 7), (3, 5)])
    func noNodeGetsMoreThanItsEvenShare(partitions count: Int, nodes: Int) {
        let share = PartitionShare(partitions: DevicePartitions(count: count), nodes: (1...nodes).map { "node-\($0)" })
        let loads = share.nodes.map { share.partitions(of: $0).count }
        #expect(loads.reduce(0, +) == count)
        #expect(share.largestShare == (count + nodes - 1) / nodes)
        #expect(loads.allSatisfy { $0 <= share.largestShare }, "\(loads)")
    }

    @Test func aNodeThatDiesHandsItsPartitionsToTheOthersAndTheirsMostlyStay() {
        let before = PartitionShare(partitions: partitions, nodes: ["node-a", "node-b", "node-c"])
        let after = PartitionShare(partitions: partitions, nodes: ["node-a", "node-c"])
        let orphaned = before.partitions(of: "node-b")
        #expect(orphaned.allSatisfy { after.owner(of: $0) != nil && after.owner(of: $0) != "node-b" })
        let toA = orphaned.filter { after.owner(of: $0) == "node-a" }.count
        #expect(toA > 0 && toA < orphaned.count, "node-b's \(orphaned.count) are spread over both (\(toA) to node-a)")
        let movedBetween = (0..<256).filter { before.owner(of: $0) != "node-b" && after.owner(of: $0) != before.owner(of: $0) }
        #expect(movedBetween.count <= orphaned.count / 8, "\(movedBetween.count) of the survivors' partitions moved")
    }

    @Test func aNodeThatJoinsTakesItsShareAndLittleElseMoves() {
        let before = PartitionShare(partitions: partitions, nodes: ["node-a", "node-b"])
        let after = PartitionShare(partitions: partitions, nodes: ["node-a", "node-b", "node-c"])
        let moved = (0..<256).filter { before.owner(of: $0) != after.owner(of: $0) }
        let toC = after.partitions(of: "node-c")
        #expect(toC.count == 85 || toC.count == 86)
        #expect(moved.count - toC.count <= toC.count / 8, "\(moved.count - toC.count) moved between the others")
    }

    @Test func noNodesOwnNothing() {
        let share = PartitionShare(partitions: partitions, nodes: [])
        #expect(share.owner(of: 0) == nil)
        #expect(PartitionShare(partitions: DevicePartitions(count: 1), nodes: ["solo"]).partitions(of: "solo") == [0])
    }
}
