import PushlabCore
@testable import PushlabScenario
import Testing

/// A `report` step: the provider report's findings and figures as a scenario's expectations.
@Suite struct ReportStepTests {
    static let report = """
        {"recording": true, "findings": 2, "providers": [
          {"id": "key:PUSHLAB001", "requests": 12, "connections": {"opened": 3}, "retries": {"total": 2, "afterSuccess": 1},
           "pushesAfter410": 1, "providerTokens": {"distinct": 1}, "tooManyRequests": {"answers": 0, "pushesTooSoon": 0},
           "statuses": {"200": 10, "410": 1, "503": 1}, "concurrency": {"peak": 4}, "latencyMs": {"p50": 35, "p99": 240},
           "findings": [{"id": "connection-per-push", "count": 3, "examples": ["connection 7: 1 request in 2 ms"]},
                        {"id": "pushed-after-410", "count": 1, "examples": []}]},
          {"id": "key:OTHERKEY01", "requests": 3, "connections": {"opened": 1}, "retries": {"total": 0}, "statuses": {"200": 3},
           "concurrency": {"peak": 9}, "latencyMs": {"p50": 20, "p99": 300}, "findings": []}
        ]}
        """

    func expectation(_ yaml: String) throws -> ReportExpectation {
        try ReportExpectation.parse(try JSONParser.parse(yaml), place: "steps[0].report")
    }

    func failures(_ json: String) throws -> [String] {
        try expectation(json).failures(in: try JSONParser.parse(Self.report))
    }

    @Test func findingsThatMustAndMustNotBeFound() throws {
        #expect(try failures(#"{"findings": ["connection-per-push", "pushed-after-410"]}"#).isEmpty)
        #expect(try failures(#"{"noFindings": ["duplicate-push"]}"#).isEmpty)
        #expect(try failures(#"{"findings": ["duplicate-push"]}"#) == [
            "expected the finding duplicate-push for the providers; the report has connection-per-push, pushed-after-410",
        ])
        #expect(try failures(#"{"noFindings": true}"#) == [
            "expected no finding connection-per-push for the providers, but found 3, e.g. connection 7: 1 request in 2 ms",
            "expected no finding pushed-after-410 for the providers, but found 1",
        ])
    }

    @Test func figuresAddUpOverProvidersAndPeaksTakeTheHighest() throws {
        #expect(try failures(#"{"atMost": {"requests": 15, "connectionsOpened": 4, "serverErrors": 1, "peakConcurrency": 9, "latencyP99Ms": 300}}"#).isEmpty)
        #expect(try failures(#"{"atLeast": {"requests": 15, "duplicates": 1, "pushesAfter410": 1}}"#).isEmpty)
        #expect(try failures(#"{"atMost": {"connectionsOpened": 1, "latencyP99Ms": 250}}"#) == [
            "expected connectionsOpened at most 1 for the providers, got 4",
            "expected latencyP99Ms at most 250 for the providers, got 300",
        ])
        #expect(try failures(#"{"atLeast": {"retries": 3}}"#) == ["expected retries at least 3 for the providers, got 2"])
    }

    @Test func aStepNamesTheProviderItReads() throws {
        let step = try expectation(#"{"provider": "key:PUSHLAB001", "noFindings": true}"#)
        #expect(step.path == "/v1/report?provider=key%3APUSHLAB001")
        let empty = try JSONParser.parse(#"{"recording": true, "providers": []}"#)
        #expect(step.failures(in: empty) == ["no requests from provider key:PUSHLAB001"])
        let stopped = try JSONParser.parse(#"{"recording": false, "providers": []}"#)
        #expect(try expectation(#"{"noFindings": true}"#).failures(in: stopped) == ["the server is not recording the provider report"])
    }

    @Test func mistakesInTheStepAreSaidWithTheirPlace() throws {
        let cases: [(String, String)] = [
            (#"{"findings": ["retried-411"]}"#, "steps[0].report.findings: \"retried-411\" is not a finding"),
            (#"{"atMost": {"connections": 1}}"#, "steps[0].report.atMost.connections is not a figure"),
            (#"{"atMost": {"requests": -1}}"#, "steps[0].report.atMost.requests must be a number, 0 or more"),
            (#"{"provider": "X"}"#, "steps[0].report expects nothing"),
            (#"{"noFindings": true, "colour": "red"}"#, "colour"),
        ]
        for (yaml, message) in cases {
            #expect(throws: ScenarioScriptError.self) { try expectation(yaml) }
            do {
                _ = try expectation(yaml)
            } catch {
                #expect("\(error)".contains(message), "\(error)")
            }
        }
    }

    @Test func aScenarioWithAReportStepRecordsFromItsStart() async throws {
        let server = FakeServer()
        let scenario = try scenario(steps: "  - send: { device: phone, payload: {} }\n  - report: { noFindings: true }\n")
        #expect(scenario.recordsReport)
        let report = await ScenarioRunner(scenario: scenario, driver: server).run()
        let calls = await server.calls
        #expect(calls.firstIndex(of: "PUT /v1/report")! < calls.firstIndex(of: "DELETE /v1/report")!)
        #expect(calls.contains("GET /v1/report"))
        #expect(!report.passed, "the fake server's report is empty")
        #expect(report.steps[1].failures.first?.contains("no providers list") == true)
    }
}
