import PushlabCore
import Testing

/// Every reason of reference section 2, produced by a documented request, under each auth mode it applies to.
@Suite("Every APNs reason, under both auth modes")
struct ReasonCoverageTests {
    @Test(arguments: AuthMode.allCases)
    func aWellFormedPushIsAccepted(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let outcome = harness.send(headers: [("apns-push-type", "alert"), ("apns-priority", "10")])
        #expect(outcome.response?.status == 200)
        #expect(harness.sink.accepted.count == 1)
    }

    @Test(arguments: AuthMode.allCases)
    func methodNotAllowed(mode: AuthMode) throws {
        #expect(try Harness(mode).send(method: "GET").response?.reason == .methodNotAllowed)
    }

    @Test(arguments: AuthMode.allCases)
    func badPath(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.send(path: "/3/devices/\(TestWorld.devToken)")) == .badPath)
        // Paths of the broadcast API's shape that it does not have.
        #expect(harness.reason(harness.send(path: "/4/broadcasts/x")) == .badPath)
        #expect(harness.reason(harness.send(path: "/4/broadcasts/apps/")) == .badPath)
        #expect(harness.reason(harness.send(path: "/1/apps/\(TestWorld.app)/channel")) == .badPath)
    }

    @Test(arguments: AuthMode.allCases)
    func missingDeviceToken(mode: AuthMode) throws {
        #expect(try Harness(mode).send(path: "/3/device/").response?.reason == .missingDeviceToken)
    }

    @Test(arguments: AuthMode.allCases)
    func duplicateHeaders(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.send(headers: [("apns-priority", "10"), ("apns-priority", "5")])) == .duplicateHeaders)
        #expect(harness.reason(harness.send(headers: [("apns-topic", TestWorld.app)])) == .duplicateHeaders)
        #expect(harness.reason(harness.send(headers: [("apns-something-new", "1"), ("apns-something-new", "2")])) == .duplicateHeaders)
        #expect(harness.reason(harness.send(headers: [("x-custom", "1"), ("x-custom", "2")])) == nil)
    }

    @Test(arguments: AuthMode.allCases)
    func badMessageIdGetsAFreshApnsID(mode: AuthMode) throws {
        let harness = try Harness(mode)
        for bad in ["not-a-uuid", "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g"] {
            let response = try #require(harness.send(headers: [("apns-id", bad)]).response)
            #expect(response.reason == .badMessageId)
            #expect(response.apnsID != bad && response.apnsID.count == 36)
        }
        #expect(harness.send(headers: [("apns-id", "123e4567-e89b-12d3-a456-426614174000")]).response?.apnsID == "123e4567-e89b-12d3-a456-426614174000")
    }

    @Test(arguments: AuthMode.allCases)
    func badPriority(mode: AuthMode) throws {
        let harness = try Harness(mode)
        for bad in ["abc", "0", "7", "11", ""] {
            #expect(harness.reason(harness.send(headers: [("apns-priority", bad)])) == .badPriority, "priority \(bad)")
        }
        for good in ["1", "5", "10"] {
            #expect(harness.reason(harness.send(headers: [("apns-priority", good)])) == nil, "priority \(good)")
        }
    }

    @Test(arguments: AuthMode.allCases)
    func badExpirationDate(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.send(headers: [("apns-expiration", "tomorrow")])) == .badExpirationDate)
        #expect(harness.reason(harness.send(headers: [("apns-expiration", "-1")])) == .badExpirationDate)
        #expect(harness.reason(harness.send(headers: [("apns-expiration", "0")])) == nil)
        #expect(harness.reason(harness.send(headers: [("apns-expiration", "1767229200")])) == nil)
    }

    @Test(arguments: AuthMode.allCases)
    func badCollapseIdCountsUTF8Bytes(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.send(headers: [("apns-collapse-id", String(repeating: "x", count: 64))])) == nil)
        #expect(harness.reason(harness.send(headers: [("apns-collapse-id", String(repeating: "x", count: 65))])) == .badCollapseId)
        #expect(harness.reason(harness.send(headers: [("apns-collapse-id", String(repeating: "é", count: 33))])) == .badCollapseId)
    }

    @Test(arguments: AuthMode.allCases)
    func invalidPushType(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.send(headers: [("apns-push-type", "silent")])) == .invalidPushType)
        // A .voip topic with another push type (O11, O12).
        #expect(harness.reason(harness.send(token: TestWorld.voipToken, topic: TestWorld.app + ".voip", headers: [("apns-push-type", "alert")])) == .invalidPushType)
    }

    @Test(arguments: AuthMode.allCases)
    func everyPushTypeIsKnown(mode: AuthMode) throws {
        let harness = try Harness(mode)
        for type in APNsPushType.allCases {
            #expect(harness.reason(harness.send(headers: [("apns-push-type", type.rawValue)])) != .invalidPushType, "\(type)")
        }
    }

    @Test(arguments: AuthMode.allCases)
    func payloadEmpty(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.send(body: nil)) == .payloadEmpty)
        #expect(harness.reason(harness.send(body: "")) == .payloadEmpty)
    }

    @Test(arguments: AuthMode.allCases)
    func payloadTooLargeIs4096Or5120ForVoIP(mode: AuthMode) throws {
        let harness = try Harness(mode)
        func body(_ size: Int) -> String { #"{"aps":{},"x":""# + String(repeating: "x", count: size - 17) + #""}"# }
        #expect(body(4096).utf8.count == 4096)
        #expect(harness.reason(harness.send(body: body(4096))) == nil)
        #expect(harness.reason(harness.send(body: body(4097))) == .payloadTooLarge)
        let voip = TestWorld.app + ".voip"
        #expect(harness.reason(harness.send(token: TestWorld.voipToken, topic: voip, headers: [("apns-push-type", "voip")], body: body(5120))) == nil)
        #expect(harness.reason(harness.send(token: TestWorld.voipToken, topic: voip, headers: [("apns-push-type", "voip")], body: body(5121))) == .payloadTooLarge)
    }

    @Test(arguments: AuthMode.allCases)
    func badDeviceToken(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.send(token: "xyz")) == .badDeviceToken)
        #expect(harness.reason(harness.send(token: String(repeating: "a", count: 63))) == .badDeviceToken)
        #expect(harness.reason(harness.send(token: String(repeating: "ab", count: 32) + "c")) == .badDeviceToken)
        #expect(harness.reason(harness.send(token: String(repeating: "ab", count: 32))) == .badDeviceToken, "well formed, unknown")
        #expect(harness.reason(harness.send(token: TestWorld.prodToken)) == .badDeviceToken, "a production token on development")
        #expect(harness.reason(harness.send(token: TestWorld.longToken)) == nil, "100 hex digits are a valid token")
        #expect(harness.reason(harness.send(token: TestWorld.devToken.uppercased())) == nil, "hex is case-insensitive")
    }

    @Test(arguments: AuthMode.allCases)
    func deviceTokenNotForTopic(mode: AuthMode) throws {
        let harness = try Harness(mode)
        // A VoIP push to the base topic, and an app token sent to the .voip topic (O13).
        #expect(harness.reason(harness.send(headers: [("apns-push-type", "voip")])) == .deviceTokenNotForTopic)
        #expect(harness.reason(harness.send(topic: TestWorld.app + ".voip")) == .deviceTokenNotForTopic)
        #expect(harness.reason(harness.send(token: TestWorld.voipToken)) == .deviceTokenNotForTopic)
    }

    /// Each push type with a topic suffix takes its own framework's token: the app's regular
    /// token is `DeviceTokenNotForTopic` for every one of them, as Apple answers for location
    /// pushes (forum thread 691613) and VoIP (O13); the others by analogy.
    @Test(arguments: APNsPushType.allCases.filter { $0.topicSuffix != nil && $0 != .liveactivity })
    func theAppsTokenIsNotForASuffixedTopic(type: APNsPushType) throws {
        let harness = try Harness(.token)
        let outcome = harness.send(topic: TestWorld.app + type.topicSuffix!, headers: [("apns-push-type", type.rawValue), ("apns-priority", "5")])
        #expect(harness.reason(outcome) == .deviceTokenNotForTopic)
        #expect(outcome.response?.status == 400)
        #expect(harness.reason(harness.send(headers: [("apns-push-type", "alert")])) == nil, "the bare topic still takes it")
    }

    /// The exception: a Live Activity push to the app's token is accepted, and the phone ignores it.
    @Test func theAppsTokenIsAcceptedForTheLiveActivityTopic() throws {
        let harness = try Harness(.token)
        let outcome = harness.send(topic: TestWorld.app + ".push-type.liveactivity", headers: [("apns-push-type", "liveactivity")])
        #expect(outcome.response?.status == 200)
    }

    @Test(arguments: AuthMode.allCases)
    func goneTokensAnswer410WithTheirTimestamp(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let unregistered = try #require(harness.send(token: TestWorld.unregisteredToken).response)
        #expect(unregistered.status == 410 && unregistered.reason == .unregistered && unregistered.timestamp == TestWorld.goneSince)
        let expired = try #require(harness.send(token: TestWorld.expiredToken).response)
        #expect(expired.status == 410 && expired.reason == .expiredToken && expired.timestamp == TestWorld.goneSince)
    }

    @Test(arguments: AuthMode.allCases)
    func tooManyRequestsToOneToken(mode: AuthMode) throws {
        var policy = APNsPolicy()
        policy.deviceTokenRateLimit = .init(requests: 3, perSeconds: 10)
        let harness = try Harness(mode, policy: policy)
        for _ in 0..<3 { #expect(harness.reason(harness.send()) == nil) }
        #expect(harness.reason(harness.send()) == .tooManyRequests)
        #expect(harness.reason(harness.send(token: TestWorld.longToken)) == nil, "other tokens are not limited")
        harness.clock.advance(seconds: 10)
        #expect(harness.reason(harness.send()) == nil, "the window has passed")
    }

    /// A connection keeps the service's limiter between requests (no lock per request), and a
    /// limit set or lifted on the live service still reaches it at its next request.
    @Test(arguments: AuthMode.allCases)
    func aRateLimitChangedOnTheServiceReachesOpenConnections(mode: AuthMode) throws {
        var policy = APNsPolicy()
        policy.deviceTokenRateLimit = nil
        let harness = try Harness(mode, policy: policy)
        for _ in 0..<3 { #expect(harness.reason(harness.send()) == nil) }
        policy.deviceTokenRateLimit = .init(requests: 2, perSeconds: 10)
        harness.service.policy = policy
        for _ in 0..<2 { #expect(harness.reason(harness.send()) == nil) }
        #expect(harness.reason(harness.send()) == .tooManyRequests)
        policy.deviceTokenRateLimit = nil
        harness.service.policy = policy
        #expect(harness.reason(harness.send()) == nil, "the limit was lifted")
    }

    /// A registered token's window lives beside it in the world; a token APNs does not know
    /// (accepted by policy) is counted by the limiter's own table. Both are per token, across
    /// connections.
    @Test(arguments: AuthMode.allCases)
    func theWindowIsTheTokensAcrossConnectionsAndSurvivesARegistration(mode: AuthMode) throws {
        var policy = APNsPolicy()
        policy.deviceTokenRateLimit = .init(requests: 2, perSeconds: 10)
        policy.acceptUnknownDeviceTokens = true
        let harness = try Harness(mode, policy: policy)
        let unknown = String(repeating: "9c", count: 32)
        for token in [TestWorld.devToken, unknown] {
            #expect(harness.reason(harness.send(token: token)) == nil)
            harness.reconnect()
            #expect(harness.reason(harness.send(token: token)) == nil)
            #expect(harness.reason(harness.send(token: token)) == .tooManyRequests, "\(token)")
        }
        let record = try #require(harness.world.world.token(TestWorld.devToken))
        harness.world.world.register(record)
        #expect(harness.reason(harness.send()) == .tooManyRequests, "registering the token again does not reset its window")
        harness.clock.advance(seconds: 10)
        #expect(harness.reason(harness.send()) == nil)
        #expect(harness.reason(harness.send(token: unknown)) == nil)
    }

    @Test(arguments: AuthMode.allCases)
    func faultsAnswerServerErrors(mode: AuthMode) throws {
        for reason in [APNsErrorReason.internalServerError, .serviceUnavailable, .shutdown] {
            let harness = try Harness(mode, faults: AlwaysFault(.respond(reason)))
            let response = try #require(harness.send().response)
            #expect(response.reason == reason && response.status == reason.status)
            let logged = try #require(harness.log.entries(limit: 1).first)
            #expect(logged.reason == reason)
            #expect(logged.deviceToken == TestWorld.devToken, "the log names the device the push was for")
        }
    }

    @Test(arguments: AuthMode.allCases)
    func idleTimeoutIsAGoAwayAfterTheConfiguredTime(mode: AuthMode) throws {
        var policy = APNsPolicy()
        policy.idleTimeoutSeconds = 600
        let harness = try Harness(mode, policy: policy)
        harness.send()
        harness.clock.advance(seconds: 599)
        #expect(harness.connection.tick().isEmpty)
        harness.connection.peerWasActive()
        harness.clock.advance(seconds: 599)
        #expect(harness.connection.tick().isEmpty, "a PING or any frame resets the idle time")
        harness.clock.advance(seconds: 1)
        #expect(harness.connection.tick() == [.goAway(.idleTimeout)])
        #expect(harness.connection.tick().isEmpty, "sent once")
    }

    @Test func badRequestPayloadInStrictMode() throws {
        var policy = APNsPolicy()
        policy.strictPayload = true
        for mode in AuthMode.allCases {
            let harness = try Harness(mode, policy: policy)
            #expect(harness.reason(harness.send(body: "not json")) == .badRequestPayload)
            #expect(harness.reason(harness.send(body: "[1,2]")) == .badRequestPayload)
            #expect(harness.reason(harness.send(body: #"{"aps":{"alert":"x"}}"#)) == nil)
            let lenient = try Harness(mode)
            #expect(lenient.reason(lenient.send(body: "not json")) == nil, "Apple accepts any bytes")
        }
    }
}

final class AlwaysFault: FaultInjector {
    let fault: Fault
    init(_ fault: Fault) { self.fault = fault }
    func fault(for request: APNsRequest, connection: ConnectionInfo, now: EpochMilliseconds) -> Fault? { fault }
}
