import Hummingbird
import PushlabCore
import PushlabSimulator

/// What the user does on a device, and the device entering or leaving a region.
extension ControlAPI {
    var interactionRoutes: [Route] {
        [Route(.post, "/v1/devices/:id/interactions", interact)]
    }

    /// `POST /v1/devices/{id}/interactions`: answers with the observations it caused on the
    /// device (anything else happening on the device meanwhile included), oldest first.
    @Sendable func interact(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("id")
        let action = try await request.decode(InteractionBody.self).value.action()
        // Pushes accepted earlier are not what this interaction caused.
        simulator.settle()
        let before = simulator.lastSequence
        try simulating { () throws(SimulatorError) in
            switch action {
            case .interaction(let interaction): try simulator.interact(interaction, on: id)
            case .region(let region, let entered): try simulator.regionEvent(region, entered: entered, on: id)
            }
        }
        return JSONResponse(try observationsJSON(deviceID: id, after: before)).response
    }

    /// `{"observations": […], "last": n}` for one device after `sequence`.
    func observationsJSON(deviceID: String, after sequence: Int64) throws(ControlError) -> JSONValue {
        let observations = try history.observations(deviceID: deviceID, since: sequence, limit: 10_000)
        return .object([
            ("observations", .array(observations.map(\.json))),
            ("last", .number(Double(observations.last?.sequence ?? sequence))),
        ])
    }
}
