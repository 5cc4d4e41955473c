import Hummingbird
import PushlabCore
import PushlabSimulator

/// What the devices observed, and what APNs was asked.
extension ControlAPI {
    var observationRoutes: [Route] {
        [
            Route(.get, "/v1/observations", listAllObservations),
            Route(.get, "/v1/devices/:id/observations", listDeviceObservations),
        ]
    }

    var pushRoutes: [Route] {
        [Route(.get, "/v1/pushes", listPushes)]
    }

    /// `GET /v1/devices/{id}/observations?since=&bundleId=&kind=&limit=`: oldest first; `last`
    /// is the newest sequence returned (or `since`), to pass as the next `since`.
    @Sendable func listDeviceObservations(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let device = try existingDevice(context)
        let query = try QueryParameters(request, allowed: ["since", "bundleId", "kind", "limit"])
        return try observations(query, deviceID: device.id)
    }

    /// `GET /v1/observations?since=&deviceId=&bundleId=&kind=&limit=`: every device's.
    @Sendable func listAllObservations(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["since", "deviceId", "bundleId", "kind", "limit"])
        return try observations(query, deviceID: query.string("deviceId"))
    }

    private func observations(_ query: QueryParameters, deviceID: String?) throws -> Response {
        // Every push accepted before this request has reached its device.
        simulator.settle()
        let since = Int64(try query.integer("since", default: 0, in: 0...Int.max)!)
        let limit = try query.integer("limit", default: 1000, in: 1...10_000)!
        let observations = try history.observations(
            deviceID: deviceID, since: since, bundleID: query.string("bundleId"),
            kind: try query.choice("kind", as: ObservationKind.self), limit: limit
        )
        return JSONResponse(.object([
            ("observations", .array(observations.map(\.json))),
            ("last", .number(Double(observations.last?.sequence ?? since))),
        ])).response
    }

    /// `GET /v1/pushes?deviceToken=&status=&reason=&limit=`: the request log, newest first.
    @Sendable func listPushes(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["deviceToken", "status", "reason", "limit"])
        let pushes = try history.requests(
            deviceToken: query.string("deviceToken")?.lowercased(),
            status: try query.integer("status", in: 100...599),
            reason: try query.choice("reason", as: APNsErrorReason.self),
            limit: try query.integer("limit", default: 100, in: 1...10_000)!
        )
        return JSONResponse(.object([("pushes", .array(pushes.map { $0.controlJSON() }))])).response
    }
}
