import Hummingbird
import PushlabCore

/// The provider report: what each provider did, and what of it Apple warns against
/// (docs/LOAD-TESTING.md).
extension ControlAPI {
    var reportRoutes: [Route] {
        [
            Route(.get, "/v1/report", readReport),
            Route(.put, "/v1/report", changeRecording),
            Route(.delete, "/v1/report", clearReport),
        ]
    }

    var reportRecorder: ProviderReportRecorder {
        get throws(ControlError) {
            guard let recorder = service?.report else { throw .conflict("This server keeps no provider report") }
            return recorder
        }
    }

    /// `GET /v1/report[?provider=…]`: the report so far, narrowed to the providers a key id,
    /// team id, provider id or part of a certificate subject names.
    @Sendable func readReport(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["provider"])
        let report = try reportRecorder.report(now: simulator.clock.now()).narrowed(to: query.string("provider"))
        return JSONResponse(report.controlJSON).response
    }

    /// `PUT /v1/report` `{"recording": true|false}`: starts or stops recording (what was recorded
    /// stays); the report afterwards.
    @Sendable func changeRecording(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let body = try await request.decode(ReportBody.self).value
        let recorder = try reportRecorder
        if body.recording { recorder.start(at: simulator.clock.now()) } else { recorder.stop() }
        return JSONResponse(recorder.report(now: simulator.clock.now()).controlJSON).response
    }

    /// `DELETE /v1/report`: forgets what was recorded (recording goes on if it was on).
    @Sendable func clearReport(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let recorder = try reportRecorder
        recorder.clear(at: simulator.clock.now())
        return JSONResponse(recorder.report(now: simulator.clock.now()).controlJSON).response
    }
}
