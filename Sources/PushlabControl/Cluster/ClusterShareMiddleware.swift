import Hummingbird

/// Says, with a node's share of a list (`ClusterLists.localHeader`), which partitions of phones
/// it simulated when it answered, so that the node merging the shares knows every phone is in
/// one of them.
struct ClusterShareMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let routing: any ClusterRouting

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[ClusterLists.localHeader] != nil else { return try await next(request, context) }
        let before = routing.status.owned
        var response = try await next(request, context)
        // A partition gained or lost while answering may be in the share or not: said as no one's.
        let after = Set(routing.status.owned)
        response.headers[ClusterLists.ownedHeader] = before.filter(after.contains).map(String.init).joined(separator: ",")
        return response
    }
}
