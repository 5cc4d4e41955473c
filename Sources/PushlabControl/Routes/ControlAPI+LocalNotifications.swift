import Hummingbird
import PushlabCore
import PushlabSimulator

/// Local notifications an app schedules, lists and cancels.
extension ControlAPI {
    var localNotificationRoutes: [Route] {
        [
            Route(.get, "/v1/devices/:id/apps/:bundleId/local-notifications", listLocalNotifications),
            Route(.post, "/v1/devices/:id/apps/:bundleId/local-notifications", scheduleLocalNotification),
            Route(.delete, "/v1/devices/:id/apps/:bundleId/local-notifications/:identifier", cancelLocalNotification),
        ]
    }

    /// The app's pending local notifications, in the order they were scheduled.
    @Sendable func listLocalNotifications(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let id = try context.pathParameter("id")
        let bundleID = try context.pathParameter("bundleId")
        let pending = try simulating { () throws(SimulatorError) in try simulator.pendingLocal(app: bundleID, on: id) }
        return JSONResponse(.object([("localNotifications", .array(pending.map(\.controlJSON)))])).response
    }

    /// 201 with the scheduled notification (and its next fire time), or with `presented: true`
    /// for `presentNow`; 409 with iOS's console message when the app may not show alerts.
    @Sendable func scheduleLocalNotification(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let bundleID = try context.pathParameter("bundleId")
        let decoded = try await request.decode(LocalNotificationBody.self)
        let notification = try decoded.value.notification(json: decoded.json)
        let presentNow = decoded.value.presentNow ?? false
        let result = try simulating { () throws(SimulatorError) in
            presentNow
                ? try simulator.presentLocalNow(notification, app: bundleID, on: id)
                : try simulator.scheduleLocal(notification, app: bundleID, on: id)
        }
        switch result {
        case .scheduled(let scheduled):
            guard presentNow, case .object(var members) = scheduled.controlJSON else {
                return JSONResponse(status: .created, scheduled.controlJSON).response
            }
            members.append(("presented", .bool(true)))
            return JSONResponse(status: .created, .object(members)).response
        case .refused(let consoleMessage):
            throw ControlError.conflict(consoleMessage)
        }
    }

    @Sendable func cancelLocalNotification(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let bundleID = try context.pathParameter("bundleId")
        let identifier = try context.pathParameter("identifier")
        try simulating { () throws(SimulatorError) in try simulator.cancelLocal(identifier, app: bundleID, on: id) }
        return JSONResponse(.object([("identifier", .string(identifier)), ("cancelled", .bool(true))])).response
    }
}
