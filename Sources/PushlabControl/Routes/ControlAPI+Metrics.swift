import Hummingbird
import PushlabCore

extension ControlAPI {
    var metricsRoutes: [Route] {
        [Route(.get, "/metrics", scrapeMetrics)]
    }

    /// `GET /metrics`: Prometheus text format 0.0.4.
    @Sendable func scrapeMetrics(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        var readings: [ControlMetrics.Reading] = [
            .init(name: "devices", help: "Simulated devices", value: simulator.deviceCount),
            .init(name: "device_tokens", help: "Device tokens the APNs world knows", value: world.tokenCount),
            .init(name: "fault_rules", help: "Active fault rules", value: faults.rules.count),
            .init(name: "event_clients", help: "Clients of /v1/events connected now", value: events.connectedClients),
            .init(name: "events_dropped", help: "Events dropped for /v1/events clients that read too slowly", value: events.droppedEvents),
        ]
        if let store {
            let statistics = store.statistics
            readings += [
                .init(name: "store_backlog", help: "Observations and requests recorded and not yet committed to the store", value: store.backlog),
                .init(name: "store_batches_written", help: "Transactions the store committed", value: statistics.batchesWritten),
                .init(name: "store_failed_batches", help: "Store transactions that failed (their items are tried again)", value: statistics.failedBatches),
                .init(name: "store_dropped_items", help: "Observations and requests dropped because the store's backlog was full", value: statistics.droppedItems),
                .init(name: "store_trimmed_observations", help: "Saved observations deleted as older than the store's history limit", value: statistics.trimmedObservations),
                .init(name: "store_trimmed_requests", help: "Saved requests deleted as older than the store's history limit", value: statistics.trimmedRequests),
                .init(
                    name: "store_shed_items", help: "Observations and requests shed unwritten because more than the history limit waited (also counted as trimmed)",
                    value: statistics.shedItems
                ),
                .init(
                    name: "store_longest_request_wait_milliseconds", help: "The longest a request's record can have waited to be committed (the crash window, measured)",
                    value: Int(statistics.longestRequestWait / .milliseconds(1))
                ),
            ]
        }
        var buffer = ByteBuffer()
        buffer.writeBytes(metrics.render(readings))
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: buffer)
        )
    }
}
