import Hummingbird
import PushlabCore

extension ControlAPI {
    var eventRoutes: [Route] {
        [Route(.get, "/v1/events", streamEvents)]
    }

    /// `GET /v1/events`: server-sent events, `event: request` for every APNs request and
    /// `event: observation` for every observation, as they happen, until the client goes away.
    @Sendable func streamEvents(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        // Subscribed once the body is written: a client gone before that leaves nothing behind.
        let body = ResponseBody { [events] writer in
            let subscriber = events.subscribe()
            defer { events.unsubscribe(subscriber) }
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
