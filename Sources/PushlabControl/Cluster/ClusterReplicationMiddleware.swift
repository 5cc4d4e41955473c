import HTTPTypes
import Hummingbird
import NIOCore

/// Makes a change to the world (`ClusterChange.kind`) the whole cluster's: the request goes into
/// the engine's list of changes, every node applies it in that order (`ClusterChangeApplier`),
/// and the answer is this node's own, once every live node has applied it, so that the next
/// request, to any node, sees the change. `pushlab-change` names the change; a node that had not
/// applied it within `nodesWait` is named in `pushlab-pending-nodes` (it will, in order).
struct ClusterReplicationMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    static let changeHeader = HTTPField.Name("pushlab-change")!
    static let pendingHeader = HTTPField.Name("pushlab-pending-nodes")!
    static let appliedWait = Duration.seconds(30)
    static let nodesWait = Duration.seconds(10)

    let routing: any ClusterRouting
    let applier: ClusterChangeApplier
    /// Whether a reset or scenario load in this body would take place: one that would not (no
    /// scenario to reset to, a file that cannot be loaded) is answered here alone, as the route
    /// answers it, and starts no new world.
    let takesPlace: @Sendable (ClusterChange.Kind, [UInt8]) -> Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[ClusterChangeApplier.replayHeader] == nil,
              let kind = ClusterChange.kind(of: request.method.rawValue, path: request.uri.path) else {
            return try await next(request, context)
        }
        let buffer = try await request.collectLimitedBody()
        let body = Array(buffer.readableBytesView)
        guard kind == .change || takesPlace(kind, body) else {
            var local = request
            local.body = RequestBody(buffer: buffer)
            return try await next(local, context)
        }
        let appended: (id: String, replaced: String?)
        do {
            appended = try await routing.appendChange(method: request.method.rawValue, path: request.uri.string, body: body, kind: kind)
        } catch {
            throw ControlError(.serviceUnavailable, "The cluster's engine did not take the change, and no node applied it: \(error). Try again.")
        }
        guard let answer = await applier.answer(to: appended.id, timeout: Self.appliedWait) else {
            throw ControlError(
                .serviceUnavailable,
                "Change \(appended.id) is in the cluster's engine, and every node applies it in turn, but this node had not within \(Self.appliedWait)"
            )
        }
        await routing.shareTokenChanges()
        let deadline = ContinuousClock.now + Self.nodesWait
        var pending = await routing.waitUntilApplied(appended.id, for: Self.nodesWait)
        // What the nodes published as they applied it (tokens their phones retired) is in the
        // list after it: every node has that too before the answer goes.
        if pending.isEmpty, let last = try? await routing.lastChange(), last != appended.id {
            pending = await routing.waitUntilApplied(last, for: max(.zero, deadline - ContinuousClock.now))
        }
        if let replaced = appended.replaced, pending.isEmpty {
            // No node reads the old world any more.
            Task { [routing] in await routing.retire(world: replaced) }
        }
        var response = answer.response
        response.headers[Self.changeHeader] = appended.id
        if !pending.isEmpty { response.headers[Self.pendingHeader] = pending.joined(separator: ", ") }
        return response
    }
}
