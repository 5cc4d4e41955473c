import Hummingbird
import PushlabCore

extension ControlAPI {
    var healthRoutes: [Route] {
        [Route(.get, "/v1/health", health)]
    }

    /// `GET /v1/health`: up, and the facts a client needs to aim at it.
    @Sendable func health(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        if let floor = request.headers[ClusterLists.sequenceFloorHeader].flatMap(Int64.init) { simulator.resumeSequence(after: floor) }
        var members: [JSONValue]?
        var lastObservation = simulator.lastSequence
        if let routing = clusterWide(request) {
            let cluster = try await ClusterLists.lastObservation(routing, request: request)
            lastObservation = cluster.last
            members = cluster.health.map(Self.member).sorted { ($0["node"]?.stringValue ?? "") < ($1["node"]?.stringValue ?? "") }
        }
        var fields = JSONFields()
        fields.add("status", "ok")
        fields.add("listeners", JSONValue.array(apnsListeners.map { listener in
            let host = listener.host.contains(":") ? "[\(listener.host)]" : listener.host
            var fields = JSONFields()
            fields.add("environment", listener.environment.rawValue)
            fields.add("role", listener.role.rawValue)
            fields.add("host", listener.host)
            fields.add("port", listener.port)
            fields.add("url", "https://\(host):\(listener.port)")
            return fields.json
        }))
        fields.add("clock", clockJSON)
        fields.add("scenario", scenarioName)
        fields.add("store", store?.path)
        // What kill -9 can lose of acknowledged pushes: their records wait at most this long to
        // be committed, or (durable) not at all.
        fields.add("durable", store?.isDurable)
        fields.add("crashWindowMs", store.map { $0.isDurable ? 0 : Int($0.crashWindow / .milliseconds(1)) })
        // A cluster's phones are each on one node: every node's share, summed.
        fields.add("devices", members.map { $0.reduce(0) { $0 + Int($1["simulatedDevices"]?.integerValue ?? 0) } } ?? simulator.deviceCount)
        fields.add("keys", world.keys.count)
        fields.add("apps", world.apps.count)
        fields.add("deviceTokens", world.tokenCount)
        fields.add("faultRules", faults.rules.count)
        fields.add("apnsConnections", metrics.connections)
        fields.add("eventClients", events.connectedClients)
        fields.add("lastObservation", lastObservation)
        // Accepted pushes not yet delivered to their devices (queued delivery; reads wait for them).
        fields.add("queuedDeliveries", delivery?.queuedDeliveries ?? 0)
        // Recorded and not yet committed (the store holds off while the server is busy).
        fields.add("storeBacklog", store?.backlog)
        fields.add("unsavedDevices", store == nil ? nil : simulator.unsavedChangeCount)
        if let routing = clusterRouting {
            let status = routing.status
            var cluster = JSONFields()
            cluster.add("node", status.node)
            cluster.add("controlApi", await routing.controlAddresses()[status.node])
            cluster.add("simulatedDevices", simulator.devices(limit: 0) { routing.simulatesHere(device: $0.id) }.matching)
            cluster.add("nodes", JSONValue.array(status.nodes.map(JSONValue.string)))
            cluster.add("partitions", status.partitions)
            cluster.add("ownedPartitions", JSONValue.array(status.owned.map { .number(Double($0)) }))
            cluster.add("durable", status.durable)
            cluster.add("members", members.map(JSONValue.array))
            fields.add("cluster", cluster.json)
        }
        return JSONResponse(fields.json).response
    }

    /// One node, as the cluster's health lists it: from its own health.
    private static func member(_ health: JSONValue) -> JSONValue {
        var fields = JSONFields()
        fields.add("node", health["cluster"]?["node"])
        fields.add("controlApi", health["cluster"]?["controlApi"])
        fields.add("ownedPartitions", health["cluster"]?["ownedPartitions"])
        fields.add("simulatedDevices", health["cluster"]?["simulatedDevices"])
        fields.add("apnsConnections", health["apnsConnections"])
        fields.add("eventClients", health["eventClients"])
        fields.add("lastObservation", health["lastObservation"])
        fields.add("listeners", health["listeners"])
        return fields.json
    }
}
