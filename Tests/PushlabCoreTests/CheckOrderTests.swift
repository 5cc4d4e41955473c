import PushlabCore
import Testing

@Suite("Which error wins (reference 7.3)")
struct CheckOrderTests {
    @Test(arguments: AuthMode.allCases)
    func referenceOrderStepByStep(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let unknownToken = String(repeating: "ab", count: 32)
        // Each request carries the fault of its line and every fault below it; the first listed wins.
        #expect(harness.reason(harness.send(token: "zz", headers: [("apns-priority", "x"), ("apns-priority", "y")], body: nil, method: "PUT")) == .methodNotAllowed)
        #expect(harness.reason(harness.send(token: "zz", headers: [("apns-priority", "x"), ("apns-priority", "y")], body: nil, path: "/nope")) == .badPath)
        #expect(harness.reason(harness.send(token: "zz", headers: [("apns-priority", "x"), ("apns-priority", "y")], body: nil)) == .duplicateHeaders)
        #expect(harness.reason(harness.send(token: "zz", headers: [("apns-priority", "x")], body: nil)) == .badPriority)
        #expect(harness.reason(harness.send(token: "zz", topic: "com.elsewhere", body: nil)) == (mode == .token ? .topicDisallowed : .badTopic))
        #expect(harness.reason(harness.send(token: "zz", body: nil)) == .payloadEmpty)
        #expect(harness.reason(harness.send(token: "zz")) == .badDeviceToken)
        #expect(harness.reason(harness.send(token: unknownToken)) == .badDeviceToken)
        #expect(harness.reason(harness.send(token: TestWorld.siblingToken)) == .deviceTokenNotForTopic)
    }

    @Test func authenticationComesBeforeTopicBodyAndToken() throws {
        let harness = try Harness(.token)
        #expect(harness.reason(harness.send(token: "zz", topic: nil, body: nil, omitAuthorization: true)) == .missingProviderToken)
        #expect(harness.reason(harness.send(token: "zz", topic: nil, body: nil, omitAuthorization: true)) != .missingTopic)
    }

    @Test func pushyOrderChecksTheDeviceTokenBeforeAuthentication() throws {
        var policy = APNsPolicy()
        policy.checkOrder = .pushy
        let pushy = try Harness(.token, policy: policy)
        #expect(pushy.reason(pushy.send(token: "zz", omitAuthorization: true)) == .badDeviceToken)
        #expect(pushy.reason(pushy.send(token: TestWorld.unregisteredToken, omitAuthorization: true)) == .unregistered)
        let reference = try Harness(.token)
        #expect(reference.reason(reference.send(token: "zz", omitAuthorization: true)) == .missingProviderToken)
        #expect(reference.reason(reference.send(token: TestWorld.unregisteredToken, omitAuthorization: true)) == .missingProviderToken)
    }

    @Test func payloadChecksComeBeforeTokenState() throws {
        let harness = try Harness(.token)
        #expect(harness.reason(harness.send(token: TestWorld.unregisteredToken, body: nil)) == .payloadEmpty)
    }
}
