/// A cluster node's control API (`pushlab serve --cluster`): which node answers requests about a
/// phone. Each phone is simulated by one node; the others forward what is asked of it there, so
/// that any node reads and acts on every phone.
public protocol ClusterRouting: Sendable {
    /// Which node answers for `deviceID`: this one when it simulates the phone (and has
    /// delivered every push answered 200 for it so far), or another.
    func route(device deviceID: String) async -> ClusterRoute

    /// What `GET /v1/health` says of the cluster.
    var status: ClusterStatus { get }

    /// Whether this node simulates `deviceID`'s phone now (its share of a list of phones).
    func simulatesHere(device deviceID: String) -> Bool

    /// Delivers every push accepted so far to the phones this node simulates (a list of them
    /// read after this sees every push answered 200 before it).
    func settle() async

    /// Every live node's control API (`http://host:port`), this one's among them.
    func controlAddresses() async -> [String: String]

    /// Appends a change to the world for every node to apply (`ClusterChange`); its id, and for
    /// a reset or a scenario load, the world it replaced.
    func appendChange(method: String, path: String, body: [UInt8], kind: ClusterChange.Kind) async throws -> (id: String, replaced: String?)

    /// The changes after `id` (from the first with nil), in the order every node applies them.
    /// It may wait a moment for the next change when there is none yet (a node waits on the
    /// engine, about a second), and answers empty if none came.
    func changes(after id: String?) async throws -> [ClusterChange]

    /// Applies a change here: `replay` runs its request against this node's own routes. A reset
    /// or a scenario load also moves the node to its new world, with no push delivered meanwhile.
    func apply(_ change: ClusterChange, replay: @Sendable () async -> Void) async

    /// Writes the phones simulated here that changed to the engine now: a phone a request just
    /// added or changed is there for the next node, should this one die.
    func writePhones() async

    /// The counts of fault rules with `count` or `everyNth`, as the engine has them: every
    /// node's requests (`matched`) and firings (`fired`).
    func faultCounts(_ rules: [String]) async throws -> [String: (matched: Int, fired: Int)]

    /// A new phone's id, `device-N`, no other node gives in this world (taken ids are the
    /// caller's to pass over).
    func newDeviceID() async throws -> String

    /// Tells every node's world the tokens the phones simulated here made or retired since the
    /// last time, and returns once every live node knows them (so that a push to a token that a
    /// request here made is taken by any node).
    func shareTokenChanges() async

    /// Appends what the phones simulated here made since the last time (their tokens), without
    /// waiting for the other nodes: after each change this node applies, so that whoever waits
    /// for the change waits for these too (`lastChange`).
    func publishPending() async

    /// The newest change in the engine's list, if any.
    func lastChange() async throws -> String?

    /// This node has applied every change up to `id`.
    func markApplied(_ id: String) async throws

    /// Waits until every live node has applied change `id`, for at most `limit`; the nodes that
    /// had not by then.
    func waitUntilApplied(_ id: String, for limit: Duration) async -> [String]

    /// Deletes what a world no node uses any more left in the engine.
    func retire(world: String) async
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
