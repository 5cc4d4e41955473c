import Hummingbird
import PushlabCore
import PushlabSimulator

/// Simulated devices: add, list, read, switch, remove.
extension ControlAPI {
    var deviceRoutes: [Route] {
        [
            Route(.get, "/v1/devices", listDevices),
            Route(.post, "/v1/devices", addDevice),
            Route(.get, "/v1/devices/:id", readDevice),
            Route(.patch, "/v1/devices/:id", changeDevice),
            Route(.delete, "/v1/devices/:id", removeDevice),
        ]
    }

    /// `GET /v1/devices?limit=&offset=&search=`: by id; `total` counts them all, or with
    /// `search` those it finds (`DeviceSearch`).
    @Sendable func listDevices(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["limit", "offset", "search"])
        // A cluster node's share is asked for all the pages up to the one wanted.
        let share = clusterRouting != nil && clusterWide(request) == nil
        let limit = try query.integer("limit", default: 100, in: 1...(share ? Int(Int32.max) * 2 : 10_000))!
        let offset = try query.integer("offset", default: 0, in: 0...Int(Int32.max))!
        let search = try query.string("search").map(DeviceSearch.init)
        var fields = JSONFields()
        if let routing = clusterWide(request) {
            var path = "/v1/devices?limit=\(offset + limit)"
            if let text = query.string("search") { path += "&search=" + PercentEncoding.encode(text) }
            let answers = try await ClusterLists.gather(routing, path: path, request: request)
            let devices = ClusterLists.merged(answers, field: "devices").sorted { ($0["id"]?.stringValue ?? "") < ($1["id"]?.stringValue ?? "") }
            fields.add("devices", JSONValue.array(Array(devices.dropFirst(offset).prefix(limit))))
            fields.add("total", answers.reduce(0) { $0 + Int($1["total"]?.integerValue ?? 0) })
        } else {
            let page: ArraySlice<SimulatedDevice>
            let total: Int
            if let routing = clusterRouting {
                // This node's share: the phones it simulates.
                let found = simulator.devices(limit: offset + limit) { device in
                    routing.simulatesHere(device: device.id) && search?.matches(device) != false
                }
                (page, total) = (found.devices.dropFirst(offset), found.matching)
            } else if let search {
                let found = simulator.devices(limit: offset + limit, where: search.matches)
                (page, total) = (found.devices.dropFirst(offset), found.matching)
            } else {
                (page, total) = (simulator.devices(limit: offset + limit).dropFirst(offset), simulator.deviceCount)
            }
            fields.add("devices", JSONValue.array(page.map(\.controlJSON)))
            fields.add("total", total)
        }
        fields.add("offset", offset)
        fields.add("limit", limit)
        return JSONResponse(fields.json).response
    }

    /// `POST /v1/devices` with a `DeviceSpec`: 201 with the device, its id and each app's token.
    @Sendable func addDevice(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let spec = try await request.decode(DeviceSpec.self).value
        try InputLimits.checkUTCOffset(spec.utcOffsetSeconds, field: "utcOffsetSeconds")
        let device = try simulating { () throws(SimulatorError) in try spec.device(place: "device") }
        if !device.id.isEmpty, simulator.device(device.id) != nil {
            var taken = ControlError.conflict("Device \(device.id) already exists")
            taken.headers[ClusterForwardingMiddleware.idTakenHeader] = "1"
            throw taken
        }
        let added = try simulating { () throws(SimulatorError) in try simulator.addDevice(device) }
        return JSONResponse(status: .created, withWarnings(added.controlJSON, for: added.apps)).response
    }

    @Sendable func readDevice(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse(try existingDevice(context).controlJSON).response
    }

    /// `PATCH /v1/devices/{id}`: coming online delivers what APNs stored; leaving low power
    /// mode releases what it held (`DeviceSimulator.updateDevice`).
    @Sendable func changeDevice(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let body = try await request.decode(DeviceChangeBody.self).value
        try body.check()
        let device = try simulating { () throws(SimulatorError) in
            try simulator.updateDevice(
                id, name: body.name, online: body.online, locked: body.locked, lowPowerMode: body.lowPowerMode,
                focus: body.focus, utcOffsetSeconds: body.utcOffsetSeconds
            )
        }
        return JSONResponse(device.controlJSON).response
    }

    /// `DELETE /v1/devices/{id}`: its apps' tokens are `Unregistered` from now.
    @Sendable func removeDevice(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        try simulating { () throws(SimulatorError) in try simulator.removeDevice(id) }
        return JSONResponse(.object([("id", .string(id)), ("removed", .bool(true))])).response
    }

    func existingDevice(_ context: BasicRequestContext) throws -> SimulatedDevice {
        let id = try context.pathParameter("id")
        guard let device = simulator.device(id) else { throw ControlError.notFound("No device \(id)") }
        return device
    }

    /// `json` with `warnings` added when an app's bundle id is not an app of any team: APNs
    /// would refuse every push to it (`TopicDisallowed`) until `POST /v1/apps` adds it.
    func withWarnings(_ json: JSONValue, for apps: [AppInstall]) -> JSONValue {
        let unknown = apps.map(\.bundleID).filter { world.app($0) == nil }
        guard !unknown.isEmpty, case .object(var members) = json else { return json }
        let warnings = unknown.map { bundleID in
            JSONValue.string("\(bundleID) is not an app of any team in the APNs world: pushes to it are refused with TopicDisallowed until POST /v1/apps adds it")
        }
        members.append(("warnings", .array(warnings)))
        return .object(members)
    }
}
