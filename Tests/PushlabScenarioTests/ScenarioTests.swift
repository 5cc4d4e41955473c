import Foundation
import PushlabCore
import PushlabScenario
import Testing

@Suite("Scenario files")
struct ScenarioTests {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private let keyPath = repository.appendingPathComponent("certs/AuthKey_PUSHLAB001.pub.pem").path

    private let source = repository.appendingPathComponent("scenarios/test.yaml").path
    private func parse(_ yaml: String) throws -> Scenario { try ScenarioParsing.parse(yaml, source: source) }
    private func error(_ yaml: String) -> String { ScenarioParsing.error(yaml, source: source) }

    @Test func theDefaultScenarioLoadsAndWorks() throws {
        let scenario = try Scenario.load(path: Self.repository.appendingPathComponent("scenarios/default.yaml").path)
        #expect(scenario.keys.map(\.keyID) == ["PUSHLAB001"])
        #expect(scenario.keys[0].environments == [.development, .production])
        #expect(scenario.apps == [AppRecord(bundleID: "com.pushlab.demo", teamID: "TEAMPUSHLB")])
        #expect(scenario.tokens.count == 9)
        #expect(scenario.devices.map(\.id) == ["ann", "ben", "cara", "dan"])
        #expect(Set(scenario.devices.flatMap(\.apps).map(\.api)) == [.legacy, .userNotifications])
        #expect(Set(scenario.devices.flatMap(\.apps).map(\.state)).count >= 3)
        #expect(scenario.devices.contains { !$0.online })
        #expect(scenario.tokens.contains { $0.state == .unregistered(since: 1_767_225_600_000) })
        // A token for each push type with a token of its own, so each type can be tried at once.
        #expect(Set(scenario.tokens.map(\.kind)) == [.app, .voip, .location, .pushToTalk, .fileProvider, .complication, .widgets, .controls])
        #expect(scenario.policy == APNsPolicy())
    }

    @Test func everyFieldIsRead() throws {
        let scenario = try parse("""
            name: full
            keys:
              - {keyId: K1, teamId: T1, publicKey: \(keyPath), environment: sandbox, topics: [com.a], relatedKeyId: K2, revoked: true}
            apps: [{bundleId: com.a, teamId: T1}]
            deviceTokens:
              - {token: \(String(repeating: "AB", count: 32)), bundleId: com.a, environment: sandbox, kind: voip, state: expired, since: "2026-02-03T04:05:06Z", device: phone-1}
            generatedDeviceTokens: [{count: 3, bundleId: com.a, environment: production, prefix: be}]
            policy:
              checkOrder: pushy
              deviceTokenRateLimit: off
              errorBudgetPerConnection: off
              idleTimeoutSeconds: 30
              environmentKeyReason: BadEnvironmentKeyInToken
            """)
        let key = try #require(scenario.keys.first)
        #expect(key.scope == .topics(["com.a"]) && key.environments == [.development] && key.relatedKeyID == "K2" && key.isRevoked)
        let token = try #require(scenario.tokens.first)
        #expect(token.token == String(repeating: "ab", count: 32) && token.kind == .voip && token.environment == .development)
        #expect(token.state == .expired(since: 1_770_091_506_000) && token.deviceID == "phone-1")
        #expect(scenario.tokens.dropFirst().map(\.token) == (0..<3).map { "be" + String(repeating: "0", count: 61) + String($0) })
        #expect(scenario.policy.checkOrder == .pushy && scenario.policy.deviceTokenRateLimit == nil)
        #expect(scenario.policy.errorBudgetPerConnection == nil && scenario.policy.idleTimeoutSeconds == 30)
        #expect(scenario.policy.environmentKeyReason == .badEnvironmentKeyInToken)
    }

    @Test func unknownKeysAreErrorsWithTheirPath() {
        let message = error("""
            apps: [{bundleId: com.a, teamId: T1, teamID: typo}]
            polcy: {}
            policy: {strictPayloads: true}
            """)
        #expect(message.contains("apps[0].teamID") && message.contains("polcy") && message.contains("policy.strictPayloads"))
    }

    @Test(arguments: [
        ("policy: {maxConcurrentStreams: 0}", "maxConcurrentStreams"),
        ("policy: {deviceTokenRateLimit: {requests: 5, perSeconds: 0}}", "deviceTokenRateLimit"),
        ("policy: {errorBudgetPerConnection: 0}", "errorBudgetPerConnection"),
        ("policy: {environmentKeyReason: BadTopic}", "environmentKeyReason"),
        ("policy: {checkOrder: random}", "checkOrder"),
        ("deviceTokens: [{token: xyz, bundleId: a, environment: development}]", "not a device token"),
        ("deviceTokens: [{token: \(String(repeating: "a", count: 64)), bundleId: a, environment: moon}]", "environment"),
        ("keys: [{keyId: K, teamId: T, publicKey: /nonexistent.pem}]", "cannot read key file"),
        ("keys: [{keyId: K, teamId: T}]", "publicKey"),
        ("deviceTokens: [{bundleId: a, environment: development}]", "token"),
    ])
    func badScenariosAreReadableErrors(yaml: String, mentions: String) {
        let message = error(yaml)
        #expect(message.contains(mentions), "\(message)")
        #expect(message.contains("test.yaml"), "names the file: \(message)")
    }
}
