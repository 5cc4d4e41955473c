import Hummingbird
import PushlabClient
import PushlabCore
import PushlabSimulator

/// `POST /v1/send`: a push sent the way a provider sends it, over HTTP/2 and TLS to this
/// server's own APNs listener, and APNs's answer as it came, with the same request as `curl`.
extension ControlAPI {
    var sendRoutes: [Route] {
        [Route(.post, "/v1/send", sendPush)]
    }

    /// How long a send waits for its answer (a fault rule's delay may be longer).
    static let sendTimeout: Duration = .seconds(30)

    @Sendable func sendPush(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let decoded = try await request.decode(SendBody.self)
        let body = decoded.value
        try body.checkHeaderText()
        let payload = try SendBody.payloadBytes(decoded.json)
        let pushType = body.pushType ?? APNsPushType.alert.rawValue
        let target = try sendTarget(body, pushType: pushType, payload: payload)
        let environment = try body.chosenEnvironment() ?? target.environment ?? .development
        let topic = body.topic ?? target.topic(for: pushType)
        guard let listener = apnsListeners.first(where: { $0.environment == environment && $0.role != .channelManagement }) else {
            throw ControlError.conflict("No APNs listener serves \(environment.rawValue) device pushes on this server")
        }
        let signer = try SendSigner.choose(body, topicBundleID: topic.map { APNsTopic($0).bundleID } ?? target.bundleID, world: world, available: signers())
        let providerToken: String
        do {
            // APNs judges the token's age by its own clock, which may be a manual one.
            providerToken = try signer.providerToken(issuedAt: simulator.clock.now() / 1000, teamID: body.teamId)
        } catch {
            throw ControlError(.internalServerError, "Signing a provider token with key \(signer.keyID) failed: \(error)")
        }
        let push = APNsNotification(
            deviceToken: target.token, payload: payload, topic: topic, pushType: pushType, priority: body.priority,
            expiration: body.expiration, collapseID: body.collapseId, apnsID: body.apnsId, providerToken: providerToken
        ).request
        let host = ListenerExchange.connectableHost(listener.host)
        let baseURL = "https://\(host.contains(":") ? "[\(host)]" : host):\(listener.port)"
        var fields = JSONFields()
        switch await ListenerExchange.send(push, to: listener, timeout: Self.sendTimeout) {
        case .answered(let answer): fields.add("answer", answer.controlJSON)
        case .noAnswer(let why): fields.add("noAnswer", why)
        }
        fields.add("request", Self.requestJSON(push, url: baseURL + push.path, environment: environment))
        fields.add("curl", push.curlCommand(baseURL: baseURL))
        return JSONResponse(fields.json).response
    }

    /// A simulated device's app (`deviceId`, `bundleId`), or a token as given.
    private func sendTarget(_ body: SendBody, pushType: String, payload: [UInt8]) throws(ControlError) -> SendTarget {
        switch (body.deviceId, body.deviceToken) {
        case (nil, let token?):
            if body.bundleId != nil { throw .invalid("bundleId goes with deviceId; a deviceToken names its app already (the topic says which)") }
            return SendTarget(token: token, world: world)
        case (let id?, nil):
            guard let device = simulator.device(id) else { throw .notFound("No device \(id)") }
            let app: AppInstall
            if let bundleID = body.bundleId {
                guard let installed = device.app(bundleID) else { throw .notFound("No app \(bundleID) on device \(id)") }
                app = installed
            } else {
                guard device.apps.count == 1, let only = device.apps.first else {
                    let apps = device.apps.map(\.bundleID).joined(separator: ", ")
                    throw .invalid("Device \(id) has \(device.apps.count) apps: give bundleId\(apps.isEmpty ? "" : " (\(apps))")")
                }
                app = only
            }
            return SendTarget(device: device, app: app, pushType: pushType, payload: payload)
        case (nil, nil):
            throw .invalid("Give deviceId (and bundleId) of a simulated device, or a deviceToken, e.g. \(SendBody.example)")
        case (_?, _?):
            throw .invalid("Give deviceId or deviceToken, not both")
        }
    }

    /// What was sent: the URL, the headers in order, the payload as text.
    private static func requestJSON(_ request: APNsClientRequest, url: String, environment: APNsEnvironment) -> JSONValue {
        var headers = JSONFields()
        for header in request.headers { headers.add(header.name, header.value) }
        var fields = JSONFields()
        fields.add("method", request.method)
        fields.add("url", url)
        fields.add("environment", environment.rawValue)
        fields.add("headers", headers.json)
        fields.add("payload", String(decoding: request.body, as: UTF8.self))
        return fields.json
    }
}
