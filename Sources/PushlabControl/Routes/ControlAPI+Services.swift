import Foundation
import Hummingbird
import PushlabCore
import PushlabScenario
import PushlabServices
import PushlabSimulator

/// JPush and GeTui (`/v1/services/…`): their portals' apps, the phones registered with them, the
/// messages they sent, and calls to their APIs on an app's behalf (docs/SERVICES.md).
extension ControlAPI {
    var serviceRoutes: [Route] {
        [
            Route(.get, "/v1/services", readServices),
            Route(.post, "/v1/services/jpush/apps", addJPushApp),
            Route(.post, "/v1/services/getui/apps", addGeTuiApp),
            Route(.get, "/v1/services/messages", readServiceMessages),
            Route(.post, "/v1/services/:service/call", callService),
        ]
    }

    private func hub() throws -> ServiceHub {
        guard let services else {
            throw ControlError.conflict("JPush and GeTui run in a single pushlab serve, and this server has none (a cluster node runs without them: docs/SERVICES.md)")
        }
        return services
    }

    @Sendable func readServices(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let hub = try hub()
        let apps = hub.apps
        let registrations = hub.registrations
        func phones(_ service: ThirdPartySDK.Service) -> JSONValue {
            .array(registrations.filter { $0.service == service }.map(\.controlJSON))
        }
        return JSONResponse(.object([
            ("jpush", .object([("apps", .array(apps.jpush.map(\.controlJSON))), ("registrations", phones(.jpush))])),
            ("getui", .object([("apps", .array(apps.getui.map(\.controlJSON))), ("registrations", phones(.getui))])),
        ])).response
    }

    @Sendable func addJPushApp(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try await addServiceApp(request) { hub, spec, directory throws(ServiceAppSpecError) in
            let app = try spec.jpushApp(directory: directory)
            hub.add(jpush: app)
            return app.controlJSON
        }
    }

    @Sendable func addGeTuiApp(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try await addServiceApp(request) { hub, spec, directory throws(ServiceAppSpecError) in
            let entry = try spec.getuiApp(directory: directory)
            hub.add(getui: entry)
            return entry.controlJSON
        }
    }

    /// A portal app from the body, its files read relative to the server's working directory: 201
    /// with what `add` made of it, 400 with why it could not.
    private func addServiceApp(
        _ request: Request, _ add: (ServiceHub, ServiceAppSpec, URL) throws(ServiceAppSpecError) -> JSONValue
    ) async throws -> Response {
        let hub = try hub()
        let spec = try await request.decode(ServiceAppBody.self).value.spec
        do {
            return JSONResponse(status: .created, try add(hub, spec, URL(fileURLWithPath: FileManager.default.currentDirectoryPath))).response
        } catch {
            throw ControlError.invalid(error.description)
        }
    }

    @Sendable func readServiceMessages(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["service", "limit"])
        var service: ThirdPartySDK.Service?
        if let name = query.string("service") {
            guard let named = ThirdPartySDK.Service(rawValue: name) else { throw ControlError.invalid("service must be jpush or getui, not \(name)") }
            service = named
        }
        let limit = try query.integer("limit", in: 1...ServiceMessageLog.kept) ?? 100
        let messages = try hub().messages.filter { service == nil || $0.service == service }.suffix(limit)
        return JSONResponse(.object([("messages", .array(messages.map(\.controlJSON)))])).response
    }

    /// `{"app": appKey or appId, "method": "POST", "path": "/v3/push", "body": {…}}`: the service's
    /// answer, as its API gave it (`{"status", "body"}`).
    @Sendable func callService(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let name = try context.pathParameter("service")
        guard let service = ThirdPartySDK.Service(rawValue: name) else { throw ControlError.notFound("No service \(name): jpush or getui") }
        let decoded = try await request.decode(ServiceCallBody.self)
        let body = decoded.json["body"].map { Array($0.description.utf8) } ?? []
        let answer: ServiceHTTPResponse
        do {
            answer = try await hub().call(service, app: decoded.value.app, method: decoded.value.method ?? "POST", path: decoded.value.path, body: body)
        } catch let error as ServiceCallError {
            throw ControlError.notFound(error.description)
        }
        let parsed: JSONValue = answer.body.isEmpty ? .null : (try? JSONParser.parse(Array(answer.body.utf8))) ?? .string(answer.body)
        return JSONResponse(.object([("status", .number(Double(answer.status))), ("body", parsed)])).response
    }
}

struct ServiceAppBody: ControlBody {
    var spec: ServiceAppSpec

    init(from decoder: any Decoder) throws {
        spec = try ServiceAppSpec(from: decoder)
    }

    static let shape = BodyShape.fields(ServiceAppSpec.keys, ["apnsKey": BodyShape.fields(ServiceAppSpec.keyKeys)])
    static let example = #"{"appKey":"…","masterSecret":"…","bundleId":"com.example.app","apnsCertificate":"certs/client.p12","apnsCertificatePassword":"pushlab"}"#
}

struct ServiceCallBody: ControlBody {
    var app: String
    var method: String?
    var path: String
    var body: FreeJSON?

    static let shape = BodyShape.fields(["app", "method", "path", "body"])
    static let example = #"{"app":"<appKey>","path":"/v3/push","body":{"platform":"ios","audience":"all","notification":{"alert":"Hi"}}}"#
}

extension ServiceRegistration {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add(service == .jpush ? "registrationId" : "clientId", id)
        fields.add(service == .jpush ? "appKey" : "appId", appKey)
        fields.add("deviceId", deviceID)
        fields.add("bundleId", bundleID)
        fields.add("deviceToken", deviceToken)
        fields.add("connected", connected)
        fields.add("alias", alias)
        if service == .jpush { fields.add("tags", strings: tags) }
        fields.add("badge", badge)
        return fields.json
    }
}

extension APNsCredential {
    var controlJSON: JSONValue {
        switch self {
        case .certificate(let path, let keyPath, let password):
            var fields = JSONFields()
            fields.add("apnsCertificate", path)
            fields.add("apnsCertificateKey", keyPath)
            fields.add("apnsCertificatePassword", password.map { _ in "(set)" })
            return fields.json
        case .signingKey(let path, let keyID, let teamID):
            return .object([("apnsKey", .object([("keyId", .string(keyID)), ("teamId", .string(teamID)), ("privateKey", .string(path))]))])
        }
    }
}

extension JPushApp {
    var controlJSON: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("appKey", .string(appKey)), ("bundleId", .string(bundleID))]
        if case .object(let credential) = apnsCredential.controlJSON { members += credential }
        return .object(members)
    }
}

extension GeTuiPortalApp {
    var controlJSON: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("appId", .string(app.appID)), ("appKey", .string(app.appKey)), ("bundleId", .string(app.bundleID)), ("environment", .string(environment.rawValue)),
        ]
        if case .object(let credential) = app.apnsCredential.controlJSON { members += credential }
        return .object(members)
    }
}

extension ServiceMessage {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("service", service.rawValue)
        fields.add(service == .jpush ? "appKey" : "appId", appKey)
        fields.add(service == .jpush ? "msgId" : "taskId", id)
        fields.addTime("time", time)
        fields.add("targets", JSONValue.array(targets.map { target in
            var row = JSONFields()
            row.add(service == .jpush ? "registrationId" : "clientId", target.id)
            row.add("deviceId", target.deviceID)
            row.add("bundleId", target.bundleID)
            row.add("apns", target.apns?.controlJSON)
            row.add("apnsFailure", target.apnsFailure)
            row.add(service == .jpush ? "customMessage" : "transmission", target.channel?.rawValue)
            return row.json
        }))
        return fields.json
    }
}
