import Hummingbird
import PushlabCore
import PushlabSimulator

/// App installs on a device: install, read, change state and settings, reinstall, uninstall.
extension ControlAPI {
    var appRoutes: [Route] {
        [
            Route(.post, "/v1/devices/:id/apps", installApp),
            Route(.get, "/v1/devices/:id/apps/:bundleId", readApp),
            Route(.patch, "/v1/devices/:id/apps/:bundleId", changeApp),
            Route(.delete, "/v1/devices/:id/apps/:bundleId", uninstallApp),
            Route(.post, "/v1/devices/:id/apps/:bundleId/reinstall", reinstallApp),
        ]
    }

    /// `POST /v1/devices/{id}/apps` with an `AppSpec`: 201 with the install and its token.
    @Sendable func installApp(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let spec = try await request.decode(AppSpec.self).value
        let app = try simulating { () throws(SimulatorError) in
            try simulator.install(try spec.install(place: "app"), on: id)
        }
        return JSONResponse(status: .created, withWarnings(app.controlJSON, for: [app])).response
    }

    @Sendable func readApp(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse(try existingApp(context).controlJSON).response
    }

    /// `PATCH /v1/devices/{id}/apps/{bundleId}`: settings are changed in place first (so a
    /// new `implements` already applies), then the state changes as the user or the system
    /// would change it, with the callbacks that go with it.
    @Sendable func changeApp(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let bundleID = try context.pathParameter("bundleId")
        let body = try await request.decode(AppChangeBody.self).value
        let current = try existingApp(context)
        let stateChange = try Self.stateChange(body, current: current.state)
        try body.checkServices(of: current)
        if body.changesSettings {
            let settings = try simulating { () throws(SimulatorError) in try body.settingsSpec(bundleID: bundleID).install(place: "app") }
            try simulating { () throws(SimulatorError) in
                try simulator.updateApp(bundleID, on: id) { app in body.apply(settings, to: &app) }
            }
        }
        switch stateChange {
        case .change(let change)?:
            try simulating { () throws(SimulatorError) in try simulator.changeApp(bundleID, on: id, to: change) }
        case .recordTermination(let termination)?:
            try simulating { () throws(SimulatorError) in
                try simulator.updateApp(bundleID, on: id) { $0.terminatedBy = termination }
            }
        case nil:
            break
        }
        return JSONResponse(try existingApp(context).controlJSON).response
    }

    /// `DELETE /v1/devices/{id}/apps/{bundleId}`: its token is `Unregistered` from now.
    @Sendable func uninstallApp(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let bundleID = try context.pathParameter("bundleId")
        try simulating { () throws(SimulatorError) in try simulator.uninstall(bundleID, from: id) }
        return JSONResponse(.object([("deviceId", .string(id)), ("bundleId", .string(bundleID)), ("uninstalled", .bool(true))])).response
    }

    /// `POST /v1/devices/{id}/apps/{bundleId}/reinstall`: the new install, with a new token.
    @Sendable func reinstallApp(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let bundleID = try context.pathParameter("bundleId")
        let app = try simulating { () throws(SimulatorError) in try simulator.reinstall(bundleID, on: id) }
        return JSONResponse(app.controlJSON).response
    }

    func existingApp(_ context: BasicRequestContext) throws -> AppInstall {
        let device = try existingDevice(context)
        let bundleID = try context.pathParameter("bundleId")
        guard let app = device.app(bundleID) else {
            throw ControlError.notFound("App \(bundleID) is not installed on device \(device.id)")
        }
        return app
    }

    enum AppStateRequest: Equatable {
        /// A change the user or the system makes.
        case change(AppStateChange)
        /// Who ended an app that is not running already: nothing runs, the record changes.
        case recordTermination(Termination)
    }

    /// `state` and `terminatedBy` as the change they ask for: foreground, background, inactive,
    /// or notRunning ended by the system (the default) or the user (force-quit).
    static func stateChange(_ body: AppChangeBody, current: AppState) throws(ControlError) -> AppStateRequest? {
        let termination = try body.terminatedBy.map { text throws(ControlError) in
            try Choice.parse(text, as: Termination.self, field: "terminatedBy")
        }
        guard let stateText = body.state else {
            guard let termination else { return nil }
            guard current == .notRunning else {
                throw .invalid("terminatedBy goes with state notRunning: the app is \(current.rawValue); send {\"state\":\"notRunning\",\"terminatedBy\":\"\(termination.rawValue)\"} to end it")
            }
            return .recordTermination(termination)
        }
        let state = try Choice.parse(stateText, as: AppState.self, field: "state")
        if termination != nil, state != .notRunning {
            throw .invalid("terminatedBy goes with state notRunning, not \(state.rawValue)")
        }
        switch state {
        case .foreground: return .change(.foreground)
        case .background: return .change(.background)
        case .inactive: return .change(.inactive)
        case .notRunning: return .change(termination == .user ? .forceQuit : .terminateBySystem)
        }
    }
}

extension AppChangeBody {
    /// Copies the settings the body gave from `parsed` (the body read as an `AppSpec`).
    func apply(_ parsed: AppInstall, to app: inout AppInstall) {
        if implements != nil { app.implements = parsed.implements }
        if authorization != nil { app.authorization = parsed.authorization }
        if backgroundModes != nil { app.remoteNotificationBackgroundMode = parsed.remoteNotificationBackgroundMode }
        if categories != nil { app.categories = parsed.categories }
        if willPresentOptions != nil { app.willPresentOptions = parsed.willPresentOptions }
        if serviceExtension != nil {
            app.serviceExtension = parsed.serviceExtension
            app.serviceExtensionBehavior = parsed.serviceExtensionBehavior
        }
        if badge != nil { app.badge = parsed.badge }
        if provider != nil { app.provider = parsed.provider }
        // A service's settings change; its token and what it counted stay.
        if let new = parsed.services?.voip, voip != nil {
            app.services?.voip?.reportsCall = new.reportsCall
            app.services?.voip?.callerKey = new.callerKey
        }
        if let new = parsed.services?.location, locationPush != nil {
            app.services?.location?.entitlement = new.entitlement
            app.services?.location?.authorization = new.authorization
        }
        if let new = parsed.services?.pushToTalk, pushToTalk != nil {
            app.services?.pushToTalk?.inChannel = new.inChannel
            app.services?.pushToTalk?.result = new.result
        }
        if let new = parsed.services?.complication, complication != nil {
            app.services?.complication?.onActiveWatchFace = new.onActiveWatchFace
        }
    }

    /// A service the install lacks cannot be added in place: it needs its token at install.
    func checkServices(of current: AppInstall) throws(ControlError) {
        let missing = [
            ("voip", voip != nil && current.services?.voip == nil), ("locationPush", locationPush != nil && current.services?.location == nil),
            ("pushToTalk", pushToTalk != nil && current.services?.pushToTalk == nil),
            ("complication", complication != nil && current.services?.complication == nil),
        ].filter(\.1).map(\.0)
        guard missing.isEmpty else {
            throw .conflict("\(current.bundleID) was installed without \(missing.joined(separator: ", ")): install it with them (POST /v1/devices/{id}/apps) to get their tokens")
        }
        if let settings = voip?.settings, settings.token != nil { throw .invalid("voip.token is given at install; a PATCH changes settings only") }
        if let settings = locationPush?.settings, settings.token != nil { throw .invalid("locationPush.token is given at install; a PATCH changes settings only") }
        if let settings = pushToTalk?.settings, settings.token != nil { throw .invalid("pushToTalk.token is given at install; a PATCH changes settings only") }
        if let settings = complication?.settings, settings.token != nil { throw .invalid("complication.token is given at install; a PATCH changes settings only") }
    }
}
