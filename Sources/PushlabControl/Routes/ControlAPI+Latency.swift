import Hummingbird
import PushlabCore

/// The latency profile (docs/SCENARIOS.md, "Latency and Apple's own failures"): how long answers
/// take, and Apple's own failures. A change applies to connections opened after it.
extension ControlAPI {
    var latencyRoutes: [Route] {
        [
            Route(.get, "/v1/latency", readLatency),
            Route(.put, "/v1/latency", changeLatency),
            Route(.delete, "/v1/latency", removeLatency),
        ]
    }

    private var apnsService: APNsProviderService {
        get throws(ControlError) {
            guard let service else { throw .conflict("This server's APNs policy cannot be changed here") }
            return service
        }
    }

    /// `{"latency": {…}}`, or `{"latency": null}` without a profile.
    private func latencyJSON(_ profile: LatencyProfile?) -> JSONValue {
        .object([("latency", profile?.controlJSON ?? .null)])
    }

    /// `GET /v1/latency`.
    @Sendable func readLatency(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse(latencyJSON(try apnsService.policy.latency)).response
    }

    /// `PUT /v1/latency` `{"preset": "apple-like"}` or a profile as `policy.latency` spells it.
    @Sendable func changeLatency(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let profile = try await request.decode(LatencyBody.self).value.profile()
        let service = try apnsService
        service.policy.latency = profile
        return JSONResponse(latencyJSON(profile)).response
    }

    /// `DELETE /v1/latency`: answers as fast as Pushlab can again.
    @Sendable func removeLatency(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        try apnsService.policy.latency = nil
        return JSONResponse(latencyJSON(nil)).response
    }
}
