import PushlabCore
import PushlabScenario
import Testing

/// A server with one phone and one app, without sockets: it records what the runner asks.
actor FakeServer: ScenarioDriver {
    var now: EpochMilliseconds = 1_767_225_600_000
    var token = String(repeating: "a", count: 64)
    var installed = true
    var sent: [(push: APNsNotification, connection: ScenarioConnection)] = []
    var broadcasts: [(broadcast: APNsBroadcast, connection: ScenarioConnection)] = []
    var calls: [String] = []
    let refusing: Set<String>

    init(refusing: Set<String> = []) {
        self.refusing = refusing
    }

    func send(_ push: APNsNotification, on connection: ScenarioConnection) async throws -> APNsAnswer {
        sent.append((push, connection))
        return APNsAnswer(status: 200, apnsID: "ID-\(sent.count)")
    }

    func broadcast(_ broadcast: APNsBroadcast, on connection: ScenarioConnection) async throws -> APNsAnswer {
        broadcasts.append((broadcast, connection))
        return APNsAnswer(status: 200, requestID: "R-\(broadcasts.count)")
    }

    func control(_ method: ControlCall.Method, _ path: String, body: JSONValue?) async throws -> JSONValue {
        calls.append("\(method.rawValue) \(path)")
        if refusing.contains(path) { throw ScenarioDriverError("\(method.rawValue) \(path) answered 404: No such thing") }
        let app = "/v1/devices/phone/apps/com.pushlab.demo"
        switch (method, path) {
        case (.get, "/v1/health"): return try JSONParser.parse(#"{"lastObservation":0}"#)
        case (.get, "/v1/clock"): return try JSONParser.parse(#"{"timeMs":\#(now)}"#)
        case (.post, "/v1/clock"):
            if let seconds = body?["advance"]?.numberValue { now += Int64(seconds * 1000) }
            return .object([])
        case (.get, "/v1/devices/phone"):
            let apps = installed ? #"[{"bundleId":"com.pushlab.demo","environment":"production","deviceToken":"\#(token)"}]"# : "[]"
            return try JSONParser.parse(#"{"id":"phone","apps":\#(apps)}"#)
        case (.post, app + "/reinstall"):
            token = String(repeating: "b", count: 64)
            return .object([])
        case (.delete, app):
            installed = false
            return .object([])
        case (.get, _) where path.hasPrefix("/v1/observations"):
            return try JSONParser.parse(#"{"observations":[]}"#)
        default:
            return .object([])
        }
    }

    func close() async {}
}

@Suite("Scenario steps: running")
struct ScenarioRunnerTests {
    func run(_ steps: String, server: FakeServer = FakeServer()) async throws -> (ScenarioReport, FakeServer) {
        let report = await ScenarioRunner(scenario: try scenario(steps: steps), driver: server).run()
        return (report, server)
    }

    @Test func providerTokensAreCachedPerConnectionAndRefreshedAfter50Minutes() async throws {
        let send = "  - send: { device: phone, payload: {} }\n"
        let (report, server) = try await run(
            send + "  - advanceClock: 10m\n" + send + "  - advanceClock: 45m\n" + send
                + "  - send: { device: phone, payload: {}, connection: other }\n"
                + "  - advanceClock: 2h\n  - send: { device: phone, payload: {}, auth: { keepToken: true } }\n"
                + "  - send: { device: phone, payload: {}, auth: { newToken: true } }\n"
        )
        #expect(report.passed)
        let tokens = await server.sent.map { $0.push.providerToken ?? "" }
        #expect(tokens.count == 6)
        #expect(tokens[0] == tokens[1], "10 minutes later the cached token is used")
        #expect(tokens[2] != tokens[1], "55 minutes after it was made, a new one")
        #expect(tokens[3] != tokens[2], "another connection has its own")
        #expect(tokens[4] == tokens[2], "keepToken reuses it at any age")
        #expect(tokens[5] != tokens[4])
        let claims = try ProviderToken.parse(tokens[2][...])
        #expect(claims.keyID == "PUSHLAB001" && claims.teamID == "TEAMPUSHLB" && claims.issuedAt == 1_767_225_600 + 55 * 60)
        #expect(await server.sent.map(\.connection.environment) == Array(repeating: .production, count: 6), "the app's environment")
    }

    @Test func theTargetIsTheDevicesCurrentTokenOrTheOneItHad() async throws {
        let (report, server) = try await run("""
          - send: { device: phone, payload: {}, pushType: voip, expiresIn: 60 }
          - reinstall: { device: phone }
          - send: { device: phone, payload: {} }
          - send: { device: phone, previousToken: true, payload: {}, environment: development }
          - uninstall: { device: phone }
          - send: { device: phone, payload: {}, auth: none }
        """)
        #expect(report.passed, "\(report.steps.flatMap(\.failures))")
        let sent = await server.sent
        #expect(sent.map { $0.push.deviceToken.prefix(1) } == ["a", "b", "a", "b"])
        #expect(sent[0].push.topic == "com.pushlab.demo.voip" && sent[0].push.pushType == "voip")
        #expect(sent[0].push.expiration == Int64(1_767_225_660))
        #expect(sent[2].connection.environment == .development)
        #expect(sent[3].push.providerToken == nil)
        #expect(await server.calls.contains("POST /v1/devices/phone/apps/com.pushlab.demo/reinstall"))
    }

    @Test func aStepThatCannotRunFailsAndTheRestAreSkipped() async throws {
        let server = FakeServer(refusing: ["/v1/devices/phone/interactions"])
        let (report, _) = try await run("""
          - send: { device: phone, payload: {} }
          - interact: { device: phone, type: tapNotification }
          - send: { device: phone, payload: {} }
        """, server: server)
        #expect(!report.passed)
        #expect(report.steps.map(\.outcome) == [.passed, .failed, .skipped])
        #expect(report.steps[1].failures == ["Could not run: POST /v1/devices/phone/interactions answered 404: No such thing"])
        #expect(await server.sent.count == 1)
    }

    @Test func theClockStartsWhereTheScenarioSays() async throws {
        let (_, server) = try await run("  - advanceClock: 1\n")
        #expect(await server.calls.first == "POST /v1/clock")
        #expect(await server.now == 1_767_225_601_000)
    }
}
