import Foundation
import PushlabCore
@testable import PushlabScenario
import PushlabServices
import Testing

/// `services:`, the apps' `jpush:` and `getui:`, and the `jpush`/`getui` steps (docs/SERVICES.md).
@Suite("Scenarios: JPush and GeTui")
struct ServiceScenarioTests {
    static let certs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../certs").standardizedFileURL.path

    static func services(_ entries: String) -> String {
        "services:\n" + entries
    }

    @Test func portalAppsAreRead() throws {
        let loaded = try scenario(steps: "  - jpush: { app: k1, body: { platform: [ios], audience: all, message: { msg_content: hi } } }", extra: """
        services:
          jpush:
            - { appKey: k1, masterSecret: s1, bundleId: com.pushlab.demo, apnsCertificate: \(Self.certs)/client.p12, apnsCertificatePassword: pushlab }
          getui:
            - { appId: G1, appKey: gk, masterSecret: gs, bundleId: com.pushlab.demo, environment: development,
                apnsKey: { keyId: PUSHLAB001, teamId: TEAMPUSHLB, privateKey: \(Self.certs)/AuthKey_PUSHLAB001.p8 } }
        """)
        #expect(loaded.services.jpush.map(\.appKey) == ["k1"])
        #expect(loaded.services.jpush.first?.apnsCredential == .certificate(path: "\(Self.certs)/client.p12", keyPath: nil, password: "pushlab"))
        #expect(loaded.services.getui.first?.environment == .development)
        #expect(loaded.services.getui.first?.app.apnsCredential == .signingKey(path: "\(Self.certs)/AuthKey_PUSHLAB001.p8", keyID: "PUSHLAB001", teamID: "TEAMPUSHLB"))
        guard case .service(let call)? = loaded.script?.steps.first?.action else { Issue.record("not a service step"); return }
        #expect(call.service == "jpush" && call.app == "k1" && call.method == "POST" && call.path == "/v3/push")
    }

    @Test(arguments: [
        ("jpush:\n    - { appKey: k1, masterSecret: s1, bundleId: a }", "services.jpush[0]: the portal needs the app's APNs credentials"),
        ("jpush:\n    - { appKey: k1, masterSecret: s1, bundleId: a, apnsCertificate: /nonexistent.p12 }", "cannot read /nonexistent.p12"),
        ("jpush:\n    - { appKey: k1, masterSecret: s1, bundleId: a, environment: production, apnsCertificate: /etc/hostname }", "environment is GeTui's portal setting"),
        ("getui:\n    - { appKey: k1, masterSecret: s1, bundleId: a, apnsCertificate: /etc/hostname }", "appId must be GeTui's app id"),
        ("jpush:\n    - { appKey: 'k:1', masterSecret: s1, bundleId: a, apnsCertificate: /etc/hostname }", "appKey must be non-empty, without a colon"),
        ("jpush:\n    - { appKey: k1, masterSecret: s1, bundleId: a, apnsKey: { keyId: K, teamId: T, privateKey: /etc/hostname } }", "is not a .p8 private key"),
        ("jpush:\n    - { appKey: k1, masterSecret: s1, bundleId: a, apnsCertificate: /etc/hostname }\n    - { appKey: k1, masterSecret: s2, bundleId: b, apnsCertificate: /etc/hostname }", "services.jpush has appKey k1 twice"),
        ("jpush:\n    - { appKey: k1, secret: s1 }", "unknown keys"),
    ])
    func badPortalAppsAreReadableErrors(entries: String, mentions: String) {
        do {
            _ = try scenario(steps: "  - advanceClock: 1", extra: "services:\n  " + entries)
            Issue.record("loaded")
        } catch {
            #expect("\(error)".contains(mentions), "\(error)")
        }
    }

    @Test func serviceStepsAndTheirResponseExpectation() throws {
        #expect(loadError(steps: "  - getui: { path: /push/all }").contains("steps[0].getui.app is required"))
        #expect(loadError(steps: "  - jpush: { app: k, method: PATCH }").contains("method must be GET, POST, PUT or DELETE"))
        #expect(loadError(steps: "  - advanceClock: 1\n    expect: { response: { status: 200 } }").contains("only a jpush or getui step has one"))
        #expect(loadError(steps: "  - jpush: { app: k }\n    expect: { response: 200 }").contains("response must be a mapping"))
        let loaded = try scenario(steps: """
          - getui: { app: G1, device: phone, method: get, path: /user/status/abc }
            expect: { response: { status: 200, body: { code: 0 } } }
        """)
        let step = try #require(loaded.script?.steps.first)
        #expect(step.device == "phone")
        guard case .service(let call) = step.action else { Issue.record("not a service step"); return }
        #expect(call.method == "GET" && call.path == "/user/status/abc" && call.body == nil)
        #expect(step.expectation.failures(answer: nil, observations: [], stepDevice: nil, serviceAnswer: .object([("status", .number(200)), ("body", .object([("code", .number(0)), ("msg", .string(""))]))])).isEmpty)
        #expect(step.expectation.failures(answer: nil, observations: [], stepDevice: nil, serviceAnswer: .object([("status", .number(401)), ("body", .null)])).count == 1)
    }
}
