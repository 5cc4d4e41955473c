import Hummingbird
import PushlabCore

extension ControlAPI {
    var eventRoutes: [Route] {
        [Route(.get, "/v1/events", streamEvents)]
    }

    /// `GET /v1/events`: server-sent events, `event: request` for every APNs request and
    /// `event: observation` for every observation, as they happen, until the client goes away.
    /// On a cluster node, every node's (`ClusterEvents`).
    @Sendable func streamEvents(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let cluster = clusterWide(request)
        let authorization = request.headers[.authorization]
        // Subscribed once the body is written: a client gone before that leaves nothing behind.
        let body = ResponseBody { [events] writer in
            let subscriber = events.subscribe()
            let relay = cluster.map { ClusterEvents.relay($0, into: subscriber, authorization: authorization) }
            defer {
                relay?.cancel()
                events.unsubscribe(subscriber)
            }
            try await writer.write(ByteBuffer(string: ": pushlab events: request, observation\n\n"))
            for await item in subscriber.items {
                try await writer.write(ByteBuffer(bytes: item.bytes))
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache"],
            body: body
        )
    }
}
