import Hummingbird
import PushlabCore
import PushlabOpenSSL
import PushlabScenario

/// Signing keys and apps of the APNs world: what provider tokens are checked against.
extension ControlAPI {
    var keyRoutes: [Route] {
        [
            Route(.get, "/v1/keys", listKeys),
            Route(.post, "/v1/keys", addKey),
            Route(.delete, "/v1/keys/:keyId", removeKey),
            Route(.get, "/v1/apps", listApps),
            Route(.post, "/v1/apps", addApp),
        ]
    }

    @Sendable func listKeys(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse(.object([("keys", .array(world.keys.map(\.controlJSON)))])).response
    }

    /// `POST /v1/keys`: 201 with the key (never its material).
    @Sendable func addKey(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let body = try await request.decode(KeyBody.self).value
        guard !body.keyId.isEmpty else { throw ControlError.invalid("keyId must not be empty") }
        guard !body.teamId.isEmpty else { throw ControlError.invalid("teamId must not be empty") }
        let pem: String
        switch (body.publicKeyPem, body.privateKeyPem) {
        case (let pemText?, nil), (nil, let pemText?): pem = pemText
        default: throw ControlError.invalid("Give one of publicKeyPem or privateKeyPem (PEM text; \\n for line breaks in JSON)")
        }
        let environment = try Choice.parse(body.environment ?? "both", as: EnvironmentChoice.self, field: "environment")
        if let topics = body.topics, topics.isEmpty || topics.contains(where: \.isEmpty) {
            throw ControlError.invalid("topics must list bundle ids (leave it out for a key of the whole team)")
        }
        let verifier: ES256Key
        do {
            verifier = try ES256Key(pem: pem)
        } catch {
            throw ControlError.invalid("\(body.publicKeyPem != nil ? "publicKeyPem" : "privateKeyPem") is not an EC P-256 key in PEM: \(error)")
        }
        if world.key(body.keyId) != nil {
            throw ControlError.conflict("Key \(body.keyId) already exists; DELETE /v1/keys/\(body.keyId) first to replace it")
        }
        let key = SigningKey(
            keyID: body.keyId, teamID: body.teamId, scope: body.topics.map { .topics(Set($0)) } ?? .team,
            environments: environment.environments, verifier: verifier
        )
        world.add(key)
        return JSONResponse(status: .created, key.controlJSON).response
    }

    @Sendable func removeKey(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let keyID = try context.pathParameter("keyId")
        guard world.key(keyID) != nil else { throw ControlError.notFound("No key \(keyID)") }
        world.removeKey(keyID)
        return JSONResponse(.object([("keyId", .string(keyID)), ("removed", .bool(true))])).response
    }

    @Sendable func listApps(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse(.object([("apps", .array(world.apps.map(\.controlJSON)))])).response
    }

    /// `POST /v1/apps`: 201 with the app. Connections already bound to the team push to it
    /// only after they reconnect, as with APNs.
    @Sendable func addApp(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let body = try await request.decode(AppRecordBody.self).value
        guard !body.bundleId.isEmpty else { throw ControlError.invalid("bundleId must not be empty") }
        guard !body.teamId.isEmpty else { throw ControlError.invalid("teamId must not be empty") }
        if let existing = world.app(body.bundleId) {
            throw ControlError.conflict("\(body.bundleId) is already an app of team \(existing.teamID)")
        }
        let app = AppRecord(bundleID: body.bundleId, teamID: body.teamId, broadcastEnabled: body.broadcastEnabled ?? true)
        world.add(app)
        return JSONResponse(status: .created, app.controlJSON).response
    }
}
