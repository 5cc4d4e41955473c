import Hummingbird
import PushlabCore
import PushlabSimulator

extension ControlAPI {
    var resetRoutes: [Route] {
        [Route(.post, "/v1/reset", reset)]
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
        faults.removeAll()
        do {
            try resetWorld()
        } catch let error as SimulatorError {
            throw ControlError(error)
        } catch {
            throw ControlError(.internalServerError, "The reset failed: \(error)")
        }
        try history.startAfresh(lastObservation: simulator.lastSequence)
        requestLog.removeAll()
        var fields = JSONFields()
        fields.add("status", "reset")
        fields.add("scenario", scenarioName)
        fields.add("devices", simulator.deviceCount)
        fields.add("clock", clockJSON)
        fields.add("lastObservation", simulator.lastSequence)
        return JSONResponse(fields.json).response
    }
}
