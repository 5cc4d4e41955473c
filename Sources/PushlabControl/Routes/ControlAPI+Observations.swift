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
    /// In a cluster, every node's share, merged in order of their numbers (`ClusterLists`).
    @Sendable func listAllObservations(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["since", "deviceId", "bundleId", "kind", "limit"])
        if let routing = clusterWide(request) {
            let since = Int64(try query.integer("since", default: 0, in: 0...Int.max)!)
            let limit = try query.integer("limit", default: 1000, in: 1...10_000)!
            _ = try query.choice("kind", as: ObservationKind.self)
            let answers = try await ClusterLists.gather(routing, path: request.uri.string, request: request)
            let observations = ClusterLists.merged(answers, field: "observations")
                .sorted { ($0["sequence"]?.integerValue ?? 0) < ($1["sequence"]?.integerValue ?? 0) }
                .prefix(limit)
            // A full page goes on after its last; otherwise after the newest number any node
            // gave, which every node numbers after from now on.
            var last = observations.last?["sequence"]?.integerValue ?? since
            if observations.count < limit {
                let newest = answers.compactMap { $0["lastSequence"]?.integerValue }.max() ?? last
                try await ClusterLists.raiseSequences(routing, after: newest, request: request)
                last = max(last, newest)
            }
            return JSONResponse(.object([("observations", .array(Array(observations))), ("last", .number(Double(last)))])).response
        }
        if let routing = clusterRouting { await routing.settle() }
        return try observations(query, deviceID: query.string("deviceId"), share: clusterRouting)
    }

    /// `share`: a cluster node's share of the list, for the node that merges them.
    private func observations(_ query: QueryParameters, deviceID: String?, share: (any ClusterRouting)? = nil) throws -> Response {
        // Every push accepted before this request has reached its device.
        simulator.settle()
        let since = Int64(try query.integer("since", default: 0, in: 0...Int.max)!)
        let limit = try query.integer("limit", default: 1000, in: 1...10_000)!
        var observations = try history.observations(
            deviceID: deviceID, since: since, bundleID: query.string("bundleId"),
            kind: try query.choice("kind", as: ObservationKind.self), limit: share == nil ? limit : .max
        )
        // A cluster node's share: the phones it simulates (its history also holds what its
        // copies of the others' phones did).
        var fields: [(String, JSONValue)] = []
        if let routing = share {
            observations = Array(observations.lazy.filter { routing.simulatesHere(device: $0.deviceID) }.prefix(limit))
            // For the node that merges the shares (`ClusterLists`).
            fields.append(("lastSequence", .number(Double(simulator.lastSequence))))
        }
        return JSONResponse(.object([
            ("observations", .array(observations.map(\.json))),
            ("last", .number(Double(observations.last?.sequence ?? since))),
        ] + fields)).response
    }

    /// `GET /v1/pushes?deviceToken=&status=&reason=&limit=`: the request log, newest first; in
    /// a cluster, every node's requests, merged by time.
    @Sendable func listPushes(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["deviceToken", "status", "reason", "limit"])
        let status = try query.integer("status", in: 100...599)
        let reason = try query.choice("reason", as: APNsErrorReason.self)
        let limit = try query.integer("limit", default: 100, in: 1...10_000)!
        if let routing = clusterWide(request) {
            let answers = try await ClusterLists.gather(routing, path: request.uri.string, request: request)
            let pushes = ClusterLists.merged(answers, field: "pushes").sorted { ($0["time"]?.stringValue ?? "") > ($1["time"]?.stringValue ?? "") }
            return JSONResponse(.object([("pushes", .array(Array(pushes.prefix(limit))))])).response
        }
        let pushes = try history.requests(deviceToken: query.string("deviceToken")?.lowercased(), status: status, reason: reason, limit: limit)
        return JSONResponse(.object([("pushes", .array(pushes.map { $0.controlJSON() }))])).response
    }
}
