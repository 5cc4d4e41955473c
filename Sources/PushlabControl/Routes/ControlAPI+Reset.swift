import Hummingbird
import PushlabCore
import PushlabSimulator

extension ControlAPI {
    var resetRoutes: [Route] {
        [Route(.post, "/v1/reset", reset), Route(.post, "/v1/scenario", load)]
    }

    /// `POST /v1/reset`: back to the loaded scenario. Fault rules go first (no request is
    /// faulted against the new world), then the world, devices, policy and clock (the serve
    /// command's reset), then the request log; the control API lists observations and requests
    /// from here on.
    @Sendable func reset(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        guard let resetWorld else {
            throw ControlError.conflict("This server was started without a scenario to reset to")
        }
        faults.startAfresh()
        do {
            try resetWorld()
        } catch let error as SimulatorError {
            throw ControlError(error)
        } catch {
            throw ControlError(.internalServerError, "The reset failed: \(error)")
        }
        return try startedAfresh(status: "reset")
    }

    /// `POST /v1/scenario` `{"path": "scenarios/x.yaml"}` (relative to the server's working directory): that scenario becomes the loaded one
    /// (a later reset returns to it), and the server resets to it (`pushlab run --server`).
    @Sendable func load(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let body = try await request.decode(ScenarioBody.self).value
        guard let loadScenario else {
            throw ControlError.conflict("This server cannot load scenarios")
        }
        faults.startAfresh()
        do {
            scenarioName = try loadScenario(body.path)
        } catch let error as SimulatorError {
            throw ControlError(error)
        } catch {
            throw ControlError.invalid("\(error)")
        }
        return try startedAfresh(status: "loaded")
    }

    /// The request log and the lists of observations start from here; the answer of a reset.
    private func startedAfresh(status: String) throws -> Response {
        try history.startAfresh(lastObservation: simulator.lastSequence)
        requestLog.removeAll()
        service?.report?.clear(at: simulator.clock.now())
        var fields = JSONFields()
        fields.add("status", status)
        fields.add("scenario", scenarioName)
        // A cluster node made only its share of the scenario's phones.
        fields.add("devices", simulator.scenarioPhoneCount ?? simulator.deviceCount)
        fields.add("clock", clockJSON)
        fields.add("lastObservation", simulator.lastSequence)
        return JSONResponse(fields.json).response
    }
}
