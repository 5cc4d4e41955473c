import PushlabCluster
import PushlabControl
import PushlabRedis

/// The control API's view of the cluster, from the node: which node simulates a phone, and the
/// changes to the world every node applies.
struct NodeRouting: ClusterRouting {
    let node: ClusterNode
    let engine: ClusterEngine

    var status: ClusterStatus {
        ClusterStatus(node: node.id, nodes: node.nodes, owned: node.owned, partitions: engine.keys.partitions.count, durable: engine.isDurable)
    }

    func route(device deviceID: String) async -> ClusterRoute {
        switch await node.route(device: deviceID) {
        case .here: .here
        case .node(let node, let address): .node(node, address: address)
        case .nobody: .nobody
        }
    }

    func simulatesHere(device deviceID: String) -> Bool { node.simulates(device: deviceID) }

    func settle() async { await node.delivery.settleAll() }

    func controlAddresses() async -> [String: String] {
        let known = node.controlAddresses
        let live = Set(node.nodes)
        return known.filter { live.contains($0.key) }
    }

    func appendChange(method: String, path: String, body: [UInt8], kind: ClusterChange.Kind) async throws -> (id: String, replaced: String?) {
        let appended = try await engine.changes.append(method: method, path: path, body: body, kind: WorldChanges.Kind(kind))
        return (appended.id.description, appended.replaced)
    }

    /// How long a read of the changes waits for the next one: a stopping node waits at most this
    /// for its applier.
    static let changeWait = Duration.seconds(1)

    func changes(after id: String?) async throws -> [ClusterChange] {
        try await engine.changes.wait(after: id.flatMap(StreamID.init), upTo: Self.changeWait, on: engine.changesReader).map { change in
            ClusterChange(
                id: change.id.description, method: change.method, path: change.path, body: change.body, kind: ClusterChange.Kind(change.kind)
            )
        }
    }

    func apply(_ change: ClusterChange, replay: @Sendable () async -> Void) async {
        switch change.kind {
        case .change: await replay()
        case .reset, .load: await node.startWorld(change.id, applying: replay)
        case .published: node.applyPublished(change.body, from: change.path)
        }
    }

    func writePhones() async {
        await node.delivery.flush()
    }

    func faultCounts(_ rules: [String]) async throws -> [String: (matched: Int, fired: Int)] {
        try await engine.faultCounts.counts(rules)
    }

    func newDeviceID() async throws -> String {
        try await engine.newDeviceID()
    }

    func shareTokenChanges() async {
        guard let id = await node.publishTokenChanges() else { return }
        await node.waitUntilApplied(id, for: .seconds(10))
    }

    func publishPending() async {
        await node.publishTokenChanges()
    }

    func lastChange() async throws -> String? {
        try await engine.changes.last()?.description
    }

    func markApplied(_ id: String) async throws {
        guard let id = StreamID(id) else { return }
        try await engine.changes.markApplied(id, by: node.id)
    }

    func waitUntilApplied(_ id: String, for limit: Duration) async -> [String] {
        guard let id = StreamID(id) else { return [] }
        return await node.waitUntilApplied(id, for: limit)
    }

    func retire(world: String) async {
        _ = try? await engine.changes.delete(world: world)
    }
}

// The same kinds in the engine and in the control API (which does not import the engine):
// one spelling each, so the raw value carries a kind from one to the other.
extension WorldChanges.Kind {
    init(_ kind: ClusterChange.Kind) { self.init(rawValue: kind.rawValue)! }
}

extension ClusterChange.Kind {
    init(_ kind: WorldChanges.Kind) { self.init(rawValue: kind.rawValue)! }
}
