/// A cluster node's control API (`pushlab serve --cluster`): which node answers requests about a
/// phone. Each phone is simulated by one node; the others forward what is asked of it there, so
/// that any node reads and acts on every phone.
public protocol ClusterRouting: Sendable {
    /// Which node answers for `deviceID`: this one when it simulates the phone (and has
    /// delivered every push answered 200 for it so far), or another.
    func route(device deviceID: String) async -> ClusterRoute

    /// What `GET /v1/health` says of the cluster.
    var status: ClusterStatus { get }
}

/// Where a request about a phone is answered.
public enum ClusterRoute: Sendable, Equatable {
    /// This node simulates the phone.
    case here
    /// Another node does; its control API's address (`http://host:port`).
    case node(String, address: String)
    /// No node does just now: its partition is between two nodes (a node died, and its leases
    /// have not run out yet).
    case nobody
}

/// A node's view of its cluster.
public struct ClusterStatus: Sendable {
    public var node: String
    /// The live nodes, this one among them, sorted.
    public var nodes: [String]
    /// The partitions of phones this node simulates, of `partitions`.
    public var owned: [Int]
    public var partitions: Int
    public var durable: Bool

    public init(node: String, nodes: [String], owned: [Int], partitions: Int, durable: Bool) {
        self.node = node
        self.nodes = nodes
        self.owned = owned
        self.partitions = partitions
        self.durable = durable
    }
}
