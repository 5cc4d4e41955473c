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
    /// On a cluster, every node's report: each provider and connection once per node that
    /// served it, marked with the node's name.
    @Sendable func readReport(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let query = try QueryParameters(request, allowed: ["provider"])
        if let routing = clusterWide(request) {
            let reports = try await ClusterLists.gather(routing, path: request.uri.string, request: request, everyPhone: false)
            return JSONResponse(Self.clusterReport(reports, now: simulator.clock.now())).response
        }
        let report = try reportRecorder.report(now: simulator.clock.now()).narrowed(to: query.string("provider"))
        var json = report.controlJSON
        if let node = clusterRouting?.status.node { json = Self.marked(json, node: node) }
        return JSONResponse(json).response
    }

    /// A node's report with its name on every provider and connection.
    private static func marked(_ report: JSONValue, node: String) -> JSONValue {
        guard case .object(var members) = report else { return report }
        for index in members.indices where ["providers", "connections"].contains(members[index].key) {
            guard case .array(let items) = members[index].value else { continue }
            members[index].value = .array(items.map { item in
                guard case .object(let fields) = item else { return item }
                return .object([("node", .string(node))] + fields)
            })
        }
        return .object(members)
    }

    /// The nodes' reports side by side: recording if every node is, since the earliest start.
    static func clusterReport(_ reports: [JSONValue], now: EpochMilliseconds) -> JSONValue {
        var fields = JSONFields()
        fields.add("recording", !reports.isEmpty && reports.allSatisfy { $0["recording"] == .bool(true) })
        fields.addTime("since", reports.compactMap { $0["sinceMs"]?.integerValue }.min())
        fields.addTime("generatedAt", now)
        fields.add("findings", Int(reports.compactMap { $0["findings"]?.integerValue }.reduce(0, +)))
        let providers = ClusterLists.merged(reports, field: "providers").sorted {
            ($0["requests"]?.numberValue ?? 0) > ($1["requests"]?.numberValue ?? 0)
        }
        fields.add("providers", .array(providers))
        fields.add("connectionsFollowed", Int(reports.compactMap { $0["connectionsFollowed"]?.integerValue }.reduce(0, +)))
        fields.add("connections", .array(Array(ClusterLists.merged(reports, field: "connections").prefix(ProviderReport.connectionsShown))))
        return fields.json
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
