import PushlabCore
import Testing

/// Interactions between rules that a review found wrong once.
@Suite("Rule interactions")
struct RuleRegressionTests {
    private func pushyPolicy() -> APNsPolicy {
        var policy = APNsPolicy()
        policy.checkOrder = .pushy
        return policy
    }

    @Test(arguments: AuthMode.allCases)
    func pushyOrderStillRefusesVoIPToTheBareTopic(mode: AuthMode) throws {
        let harness = try Harness(mode, policy: pushyPolicy())
        #expect(harness.reason(harness.send(headers: [("apns-push-type", "voip")])) == .deviceTokenNotForTopic)
    }

    @Test func pushyOrderUsesTheCertificatesDefaultTopic() throws {
        let harness = try Harness(.certificate, policy: pushyPolicy(), certificate: Harness.certificate(topics: nil))
        #expect(harness.reason(harness.send(topic: nil)) == nil)
        #expect(harness.reason(harness.send(token: TestWorld.voipToken, topic: nil)) == .deviceTokenNotForTopic)
    }

    @Test func pushyOrderAnswers410BeforeTheTopicMatchAndMissingTopicBeforeThePath() throws {
        let harness = try Harness(.token, policy: pushyPolicy())
        #expect(harness.reason(harness.send(token: TestWorld.unregisteredToken, topic: TestWorld.app + ".voip")) == .unregistered)
        #expect(harness.reason(harness.send(topic: nil, path: "/nope")) == .missingTopic)
        let reference = try Harness(.token)
        #expect(reference.reason(reference.send(token: TestWorld.unregisteredToken, topic: TestWorld.app + ".voip")) == .deviceTokenNotForTopic)
        #expect(reference.reason(reference.send(topic: nil, path: "/nope")) == .badPath)
    }

    @Test(arguments: AuthMode.allCases)
    func acceptingUnknownTokensKeepsTheVoIPTopicRule(mode: AuthMode) throws {
        var policy = APNsPolicy()
        policy.acceptUnknownDeviceTokens = true
        let harness = try Harness(mode, policy: policy)
        let unknown = String(repeating: "9a", count: 32)
        #expect(harness.reason(harness.send(token: unknown)) == nil)
        #expect(harness.reason(harness.send(token: unknown, headers: [("apns-push-type", "voip")])) == .deviceTokenNotForTopic)
    }

    @Test(arguments: AuthMode.allCases)
    func strictBackgroundPriorityAppliesToAnInferredBackgroundPush(mode: AuthMode) throws {
        var policy = APNsPolicy()
        policy.strictBackgroundPriority = true
        let harness = try Harness(mode, policy: policy)
        #expect(harness.reason(harness.send(body: #"{"aps":{"content-available":1}}"#)) == .badPriority)
        #expect(harness.reason(harness.send(headers: [("apns-priority", "5")], body: #"{"aps":{"content-available":1}}"#)) == nil)
        let lenient = try Harness(mode)
        #expect(lenient.reason(lenient.send(body: #"{"aps":{"content-available":1}}"#)) == nil)
        #expect(lenient.sink.accepted.last?.isDeliverable == false, "accepted, never delivered")
        #expect(lenient.sink.accepted.last?.pushType == .background)
    }

    @Test(arguments: AuthMode.allCases)
    func anUnusableApnsIDIsNeverEchoed(mode: AuthMode) throws {
        let harness = try Harness(mode)
        for outcome in [harness.send(headers: [("apns-id", "bad")], method: "GET"), harness.send(headers: [("apns-id", "bad")], path: "/x")] {
            let response = try #require(outcome.response)
            #expect(response.apnsID != "bad" && response.apnsID.count == 36)
        }
    }

    @Test func appsAddedAfterTheFirstPushAreNotThisConnectionsTopics() throws {
        let harness = try Harness(.token)
        #expect(harness.reason(harness.send()) == nil)
        harness.world.world.add(AppRecord(bundleID: "com.example.new", teamID: TestWorld.team))
        harness.world.world.register(DeviceTokenRecord(token: String(repeating: "5e", count: 32), bundleID: "com.example.new", environment: .development))
        #expect(harness.reason(harness.send(token: String(repeating: "5e", count: 32), topic: "com.example.new")) == .topicDisallowed)
        harness.reconnect()
        #expect(harness.reason(harness.send(token: String(repeating: "5e", count: 32), topic: "com.example.new")) == nil, "a new connection may")
    }
}
