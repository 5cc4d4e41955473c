import Hummingbird
import PushlabCore
import PushlabSimulator

/// Live Activities: what the app does with ActivityKit, the user's switches, and the broadcast
/// channels APNs knows.
extension ControlAPI {
    var liveActivityRoutes: [Route] {
        [
            Route(.get, "/v1/devices/:id/activities", listActivities),
            Route(.post, "/v1/devices/:id/apps/:bundleId/activities", startActivity),
            Route(.patch, "/v1/devices/:id/apps/:bundleId/activities/:activityId", updateActivity),
            Route(.post, "/v1/devices/:id/apps/:bundleId/activities/:activityId/end", endActivity),
            Route(.patch, "/v1/devices/:id/apps/:bundleId/live-activities", switchLiveActivities),
            Route(.get, "/v1/channels", listChannels),
        ]
    }

    /// Every Live Activity on the device, app by app (ended ones still on the Lock Screen included).
    @Sendable func listActivities(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["bundleId"])
        let device = try existingDevice(context)
        let wanted = query.string("bundleId")
        var activities: [JSONValue] = []
        for app in device.apps where wanted == nil || app.bundleID == wanted {
            for activity in app.liveActivities?.activities ?? [] {
                guard case .object(let members) = activity.controlJSON else { continue }
                activities.append(.object([("bundleId", .string(app.bundleID))] + members))
            }
        }
        return JSONResponse(.object([("deviceId", .string(device.id)), ("activities", .array(activities))])).response
    }

    /// 201 with the activity, as `Activity.request` returns it; 409 with ActivityKit's error when
    /// the app may not start one now.
    @Sendable func startActivity(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let bundleID = try context.pathParameter("bundleId")
        let decoded = try await request.decode(ActivitySpec.self)
        var spec = decoded.value
        // The members in the order sent: the decoder's dictionaries do not keep it.
        spec.attributes = decoded.json["attributes"].map(FreeJSON.init) ?? spec.attributes
        spec.contentState = decoded.json["contentState"].map(FreeJSON.init) ?? spec.contentState
        let started = try simulating { () throws(SimulatorError) in
            try simulator.startActivity(try spec.activity(place: "activity"), app: bundleID, on: id)
        }
        return JSONResponse(status: .created, started.controlJSON).response
    }

    @Sendable func updateActivity(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (id, bundleID, activityID) = try Self.activityPath(context)
        let decoded = try await request.decode(ActivityUpdateBody.self)
        let stale = try decoded.value.staleMilliseconds()
        let content = decoded.json["contentState"] ?? decoded.value.contentState.value
        try simulating { () throws(SimulatorError) in
            try simulator.updateActivity(activityID, app: bundleID, on: id, contentState: content, staleDate: stale)
        }
        return JSONResponse(try activityJSON(activityID, app: bundleID, device: id)).response
    }

    @Sendable func endActivity(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (id, bundleID, activityID) = try Self.activityPath(context)
        let decoded = try await request.decode(ActivityEndBody.self)
        let dismissal = try decoded.value.dismissal(now: simulator.clock.now())
        let content = decoded.json["contentState"]
        try simulating { () throws(SimulatorError) in
            try simulator.endActivity(activityID, app: bundleID, on: id, contentState: content, dismissal: dismissal)
        }
        let shown = try? activityJSON(activityID, app: bundleID, device: id)
        return JSONResponse(shown ?? .object([("id", .string(activityID)), ("state", .string(LiveActivity.State.dismissed.rawValue))])).response
    }

    /// The app's Live Activities with the switches changed.
    @Sendable func switchLiveActivities(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let bundleID = try context.pathParameter("bundleId")
        let body = try await request.decode(LiveActivitySwitchesBody.self).value
        guard body.enabled != nil || body.frequentUpdatesEnabled != nil else {
            throw ControlError.invalid("Give enabled and/or frequentUpdatesEnabled, e.g. \(LiveActivitySwitchesBody.example)")
        }
        let support = try simulating { () throws(SimulatorError) in
            try simulator.setLiveActivities(app: bundleID, on: id, enabled: body.enabled, frequentUpdatesEnabled: body.frequentUpdatesEnabled)
        }
        return JSONResponse(support.controlJSON).response
    }

    /// The broadcast channels providers created (or a scenario listed), oldest first.
    @Sendable func listChannels(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["bundleId", "environment"])
        let environment = try query.string("environment").map { text throws(ControlError) in
            try Choice.parse(text == "sandbox" ? "development" : text, as: APNsEnvironment.self, field: "environment")
        }
        let channels = simulator.world.channels.all.filter { channel in
            (query.string("bundleId").map { $0 == channel.bundleID } ?? true) && (environment.map { $0 == channel.environment } ?? true)
        }
        return JSONResponse(.object([("channels", .array(channels.map(\.controlJSON)))])).response
    }

    private static func activityPath(_ context: BasicRequestContext) throws -> (String, String, String) {
        (try context.pathParameter("id"), try context.pathParameter("bundleId"), try context.pathParameter("activityId"))
    }

    private func activityJSON(_ activityID: String, app bundleID: String, device deviceID: String) throws -> JSONValue {
        guard let activity = simulator.device(deviceID)?.app(bundleID)?.liveActivities?.activities.first(where: { $0.id == activityID }) else {
            throw ControlError.notFound("No Live Activity \(activityID) of \(bundleID) on \(deviceID)")
        }
        return activity.controlJSON
    }
}
