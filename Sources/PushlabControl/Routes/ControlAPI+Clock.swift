import Hummingbird
import PushlabCore
import PushlabSimulator

/// The one clock of the APNs rules and the simulator.
extension ControlAPI {
    var clockRoutes: [Route] {
        [
            Route(.get, "/v1/clock", readClock),
            Route(.post, "/v1/clock", changeClock),
        ]
    }

    /// `{mode, time, timeMs}`.
    var clockJSON: JSONValue {
        let mode: String = switch simulator.clock {
        case let controlled as ControlledClock: controlled.mode.rawValue
        case is ManualClock: "manual"
        default: "real"
        }
        var fields = JSONFields()
        fields.add("mode", mode)
        fields.addTime("time", simulator.clock.now())
        return fields.json
    }

    @Sendable func readClock(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse(clockJSON).response
    }

    /// `POST /v1/clock` `{"advance": s}`, `{"set": iso}` or `{"mode": "manual"|"real"}`: the
    /// clock afterwards. Advancing and setting go through the simulator, so whatever falls due
    /// happens at its own time.
    @Sendable func changeClock(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let change = try await request.decode(ClockBody.self).value.change()
        switch change {
        case .advance(let milliseconds):
            try simulating { () throws(SimulatorError) in try simulator.advanceClock(milliseconds: milliseconds) }
        case .set(let time):
            try simulating { () throws(SimulatorError) in try simulator.setClock(time) }
        case .mode(let mode):
            try switchMode(to: mode)
        }
        return JSONResponse(clockJSON).response
    }

    private func switchMode(to mode: ClockBody.Mode) throws(ControlError) {
        switch (simulator.clock, mode) {
        case (let controlled as ControlledClock, .manual):
            controlled.setMode(.manual)
        case (let controlled as ControlledClock, .real):
            try simulating { () throws(SimulatorError) in try simulator.checkClockMove(to: SystemClock().now()) }
            controlled.setMode(.real)
            // Whatever fell due between the manual time and now happens now, at its own time.
            simulator.runDueEvents()
        case (is ManualClock, .manual):
            break
        default:
            throw .conflict("This server's clock cannot switch to \(mode.rawValue) time (start pushlab serve with its controlled clock)")
        }
    }
}
