import Foundation
import PushlabCore
import PushlabScenario
import Testing

/// A scenario with the sample key's private half and the given steps.
func scenario(steps: String, extra: String = "") throws -> Scenario {
    let key = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../certs/AuthKey_PUSHLAB001.p8").standardizedFileURL.path
    return try Scenario.parse(yaml: """
    clock:
      start: 2026-01-01T00:00:00Z
    keys:
      - { keyId: PUSHLAB001, teamId: TEAMPUSHLB, privateKey: \(key) }
    apps:
      - { bundleId: com.pushlab.demo, teamId: TEAMPUSHLB }
    devices:
      - id: phone
        apps: [{ bundleId: com.pushlab.demo }]
    \(extra)
    steps:
    \(steps)
    """, source: "/tmp/test.yaml")
}

func loadError(steps: String) -> String {
    do {
        _ = try scenario(steps: steps)
        return "loaded"
    } catch {
        return "\(error)"
    }
}

@Suite("Scenario steps: reading")
struct ScriptParsingTests {
    /// YAML has infinities and NaN; JSON has neither, and a body or payload holding one was sent
    /// as text no JSON parser reads (found by the `scenario` fuzz target).
    @Test func yamlInfinityAndNaNStayTextInBodiesAndPayloads() throws {
        #expect(loadError(steps: "  - advanceClock: .inf").contains("steps[0].advanceClock must be a duration"))
        let loaded = try scenario(steps: """
          - addFault: { delayMs: .nan, probability: -.Inf }
          - send: { device: phone, payload: { aps: { alert: hi }, n: .NaN } }
        """)
        let steps = try #require(loaded.script?.steps)
        guard case .control(let call) = steps[0].action, case .send(let push) = steps[1].action else {
            Issue.record("not a fault and a send")
            return
        }
        #expect(call.body == .object([("delayMs", .string(".nan")), ("probability", .string("-.Inf"))]))
        #expect(String(decoding: push.payload, as: UTF8.self) == #"{"aps":{"alert":"hi"},"n":".NaN"}"#)
    }

    @Test func aSendStepReadsEveryField() throws {
        let loaded = try scenario(steps: """
          - name: hello
            send:
              device: phone
              bundleId: com.pushlab.demo
              environment: sandbox
              pushType: background
              priority: 5
              expiresIn: 3600
              collapseId: c1
              payload: { aps: { content-available: 1 }, n: 1, s: "1" }
              auth: { keyId: PUSHLAB001, issuedAt: -2h }
              connection: second
            expect: { status: 200, observations: [delivered, { kind: callback, callback: didReceiveRemoteNotificationFetch }] }
        """)
        #expect(loaded.script?.clockStart == 1_767_225_600_000)
        #expect(loaded.signers.map(\.keyID) == ["PUSHLAB001"])
        let step = try #require(loaded.script?.steps.first)
        #expect(step.title == "hello" && step.device == "phone")
        guard case .send(let push) = step.action else { Issue.record("not a send"); return }
        #expect(push.target == .device("phone", bundleID: "com.pushlab.demo", previousToken: false))
        #expect(push.environment == .development && push.pushType == "background" && push.priority == 5)
        #expect(push.expiresIn == 3600 && push.collapseID == "c1" && push.connection == "second")
        // Key order kept; a quoted number stays text.
        #expect(String(decoding: push.payload, as: UTF8.self) == #"{"aps":{"content-available":1},"n":1,"s":"1"}"#)
        #expect(push.auth == .key(keyID: "PUSHLAB001", teamID: nil, issuedAtOffset: -7200, newToken: false, keepToken: false))
        #expect(step.expectation.status == 200)
        // Short callback names become selectors.
        #expect(step.expectation.observations[1].description == #"{"kind":"callback","callback":"application:didReceiveRemoteNotification:fetchCompletionHandler:"}"#)
    }

    @Test func controlStepsBecomeControlAPICalls() throws {
        let loaded = try scenario(steps: """
          - changeApp: { device: phone, state: notRunning, terminatedBy: user }
          - interact: { device: phone, type: tapAction, actionId: REPLY, text: hi }
          - advanceClock: 20m
          - setClock: 2026-02-01T00:00:00Z
          - addFault: { count: 1, respond: { reason: ServiceUnavailable } }
          - clearFaults: true
          - uninstall: { device: phone, bundleId: com.pushlab.demo }
        """)
        let calls = try #require(loaded.script?.steps).compactMap { step -> ControlCall? in
            if case .control(let call) = step.action { return call } else { return nil }
        }
        #expect(calls.map(\.path) == [
            "/v1/devices/{device}/apps/{bundleId}", "/v1/devices/{device}/interactions", "/v1/clock", "/v1/clock", "/v1/faults",
            "/v1/faults", "/v1/devices/{device}/apps/{bundleId}",
        ])
        #expect(calls.map(\.method) == [.patch, .post, .post, .post, .post, .delete, .delete])
        #expect(calls[0].body?.description == #"{"state":"notRunning","terminatedBy":"user"}"#)
        #expect(calls[1].body?.description == #"{"bundleId":"{bundleId}","type":"tapAction","actionId":"REPLY","text":"hi"}"#)
        #expect(calls[2].body?.description == #"{"advance":1200}"#)
        #expect(calls[6].bundleID == "com.pushlab.demo")
    }

    @Test func mistakesAreReportedWithTheirPlace() {
        #expect(loadError(steps: "  - send: { device: phone, payload: {}, priorty: 5 }").contains("steps[0].send has unknown keys: priorty"))
        #expect(loadError(steps: "  - advanceClock: 10\n    changeApp: { device: phone }").contains("steps[0] must do exactly one of"))
        #expect(loadError(steps: "  - name: nothing").contains("it has none"))
        #expect(loadError(steps: "  - advanceClock: soon").contains("steps[0].advanceClock must be a duration"))
        #expect(loadError(steps: "  - send: { device: phone, token: abc, payload: {} }").contains("exactly one of device"))
        #expect(loadError(steps: "  - send: { device: phone }").contains("exactly one of payload"))
        #expect(loadError(steps: "  - changeApp: { state: background }").contains("steps[0].changeApp.device is required"))
        #expect(loadError(steps: "  - advanceClock: 1h\n    expect: { status: 200 }").contains("only a send step has one"))
        #expect(loadError(steps: "  - send: { device: phone, payload: {} }\n    expect: { observations: [{ kind: bannr }] }").contains("steps[0].expect.observations[0].kind must be one of"))
        #expect(loadError(steps: "  - send: { device: phone, payload: {} }\n    expect: { observations: [{ kind: callback, callback: didLaunch }] }").contains("is not a callback the simulator knows"))
        #expect(loadError(steps: "  - send: { device: phone, payload: {}, auth: { keepToken: true, newToken: true } }").contains("keepToken"))
        #expect(loadError(steps: "  - send: { device: phone, payload: {} }\n    expect: { timestamp: yesterday }").contains("timestamp must be true or an ISO 8601 time"))
    }

    @Test func aPublicKeyCannotSign() throws {
        let loaded = try Scenario.parse(yaml: """
        keys:
          - { keyId: K, teamId: T, publicKeyPem: "\(try ES256KeyPEM.publicHalf())" }
        """, source: "/tmp/x.yaml")
        #expect(loaded.signers.isEmpty && loaded.keys.count == 1)
        #expect(loaded.script == nil)
    }
}

enum ES256KeyPEM {
    static func publicHalf() throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../certs/AuthKey_PUSHLAB001.pub.pem").standardizedFileURL.path
        return try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\n", with: "\\n")
    }
}
