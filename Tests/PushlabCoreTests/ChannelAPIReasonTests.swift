import PushlabCore
import Testing

/// Every reason of the broadcast and channel management table (A11), each from its trigger.
@Suite("Broadcast and channel management reasons")
struct ChannelAPIReasonTests {
    static let channels = "/1/apps/\(TestWorld.app)/channels"

    @Test(arguments: AuthMode.allCases)
    func errorsCarryTheRequestIDAndApplesJSON(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let requestID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
        let response = try #require(harness.channelAPI("GET", Self.channels, headers: [("apns-request-id", requestID)]).response)
        #expect(response.status == 400 && response.reason == .missingChannelId)
        #expect(response.idHeader == .requestID && response.apnsID == requestID)
        #expect(response.body.map { String(decoding: $0, as: UTF8.self) } == #"{"reason":"MissingChannelId"}"#)
    }

    @Test(arguments: AuthMode.allCases)
    func missingChannelId(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.channelAPI("GET", Self.channels)) == .missingChannelId)
        #expect(harness.reason(harness.channelAPI("DELETE", Self.channels)) == .missingChannelId)
        #expect(harness.reason(harness.broadcast(channel: nil)) == .missingChannelId)
        #expect(harness.reason(harness.broadcast(channel: "  ")) == .missingChannelId)
    }

    @Test(arguments: AuthMode.allCases)
    func badChannelId(mode: AuthMode) throws {
        let harness = try Harness(mode)
        for bad in ["not base64!", "abc", "ab=c", String(repeating: "A", count: 132)] {
            #expect(harness.reason(harness.channelAPI("GET", Self.channels, channel: bad)) == .badChannelId, "\(bad)")
        }
        #expect(harness.reason(harness.broadcast(channel: "%%%%")) == .badChannelId)
    }

    @Test(arguments: AuthMode.allCases)
    func channelNotRegistered(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let unknown = "dHN0LXNyY2gtY2hubA=="  // Apple's example id (A10)
        #expect(harness.reason(harness.channelAPI("GET", Self.channels, channel: unknown)) == .channelNotRegistered)
        #expect(harness.reason(harness.channelAPI("DELETE", Self.channels, channel: unknown)) == .channelNotRegistered)
        #expect(harness.reason(harness.broadcast(channel: unknown)) == .channelNotRegistered)
    }

    @Test func badRequestParams() throws {
        let harness = try Harness()
        for body in [
            #"{"message-storage-policy":1,"push-type":"LiveActivity","name":"x"}"#,
            #"{"message-storage-policy":2,"push-type":"LiveActivity"}"#,
            #"{"message-storage-policy":"1","push-type":"LiveActivity"}"#,
            #"{"message-storage-policy":0.5,"push-type":"LiveActivity"}"#,
            #"{"message-storage-policy":1,"push-type":"alert"}"#,
            #"{"push-type":"LiveActivity"}"#,
            #"{"message-storage-policy":1}"#,
        ] {
            #expect(harness.reason(harness.createChannel(configuration: body)) == .badRequestParams, "\(body)")
        }
        #expect(harness.createChannel(configuration: #"{"push-type":"liveactivity","message-storage-policy":0}"#).response?.status == 201)
    }

    @Test func badRequestPayload() throws {
        let harness = try Harness()
        #expect(harness.reason(harness.createChannel(configuration: "not json")) == .badRequestPayload)
        #expect(harness.reason(harness.createChannel(configuration: "[1]")) == .badRequestPayload)
        let channel = try harness.newChannel()
        #expect(harness.reason(harness.broadcast(channel: channel, body: "{\"aps\":")) == .badRequestPayload)
    }

    @Test(arguments: AuthMode.allCases)
    func payloadEmpty(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.createChannel(configuration: nil)) == .payloadEmpty)
        let channel = try harness.newChannel()
        #expect(harness.reason(harness.broadcast(channel: channel, body: nil)) == .payloadEmpty)
    }

    @Test(arguments: AuthMode.allCases)
    func badMessageId(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let response = try #require(harness.createChannel(headers: [("apns-request-id", "not-a-uuid")]).response)
        #expect(response.reason == .badMessageId && response.apnsID != "not-a-uuid" && response.apnsID.count == 36)
        let channel = try harness.newChannel()
        #expect(harness.reason(harness.broadcast(channel: channel, headers: [("apns-id", "123")])) == .badMessageId)
    }

    @Test(arguments: AuthMode.allCases)
    func missingAndInvalidPushType(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let channel = try harness.newChannel()
        #expect(harness.reason(harness.broadcast(channel: channel, pushType: nil)) == .missingPushType)
        #expect(harness.reason(harness.broadcast(channel: channel, pushType: "alert")) == .invalidPushType)
        #expect(harness.reason(harness.broadcast(channel: channel, pushType: "live-activity")) == .invalidPushType)
    }

    @Test func cannotCreateChannelConfigPastThePolicysLimit() throws {
        var policy = APNsPolicy()
        policy.channelLimitPerApp = 2
        let harness = try Harness(policy: policy)
        _ = try harness.newChannel()
        _ = try harness.newChannel()
        #expect(harness.reason(harness.createChannel()) == .cannotCreateChannelConfig)
        // Per app and per environment.
        #expect(harness.createChannel(TestWorld.sibling).response?.status == 201)
        #expect(harness.createChannel(authority: "api-manage-broadcast.push.apple.com").response?.status == 201)
        #expect(APNsPolicy().channelLimitPerApp == 10_000)
    }

    @Test(arguments: AuthMode.allCases)
    func badExpirationDate(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let channel = try harness.newChannel()
        #expect(harness.reason(harness.broadcast(channel: channel, headers: [("apns-expiration", "soon")])) == .badExpirationDate)
        #expect(harness.reason(harness.broadcast(channel: channel, headers: [("apns-expiration", "-5")])) == .badExpirationDate)
    }

    @Test(arguments: AuthMode.allCases)
    func topicDisallowedForASuffixedBundle(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let suffixed = TestWorld.app + ".push-type.liveactivity"
        #expect(harness.reason(harness.createChannel(suffixed)) == .topicDisallowed)
        #expect(harness.reason(harness.broadcast(suffixed, channel: "dHN0LXNyY2gtY2hubA==")) == .topicDisallowed)
    }

    @Test(arguments: AuthMode.allCases)
    func badPriority(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let channel = try harness.newChannel()
        for bad in ["0", "7", "high"] {
            #expect(harness.reason(harness.broadcast(channel: channel, headers: [("apns-priority", bad)])) == .badPriority, "\(bad)")
        }
    }

    @Test func topicMismatchWithAProviderToken() throws {
        let harness = try Harness()
        #expect(harness.reason(harness.createChannel(TestWorld.rivalApp)) == .topicMismatch)
        #expect(harness.reason(harness.createChannel("com.nobody.app")) == .topicMismatch)
        // A key limited to other topics (A3's topic-specific keys).
        let scoped = try Harness()
        scoped.providerToken = try scoped.world.token(keyID: "TOPICKEY02", issuedAt: Harness.start / 1000)
        #expect(scoped.reason(scoped.createChannel(TestWorld.app)) == .topicMismatch)
        #expect(scoped.createChannel(TestWorld.sibling).response?.status == 201)
    }

    @Test func topicMismatchWithACertificate() throws {
        let harness = try Harness(.certificate)
        #expect(harness.reason(harness.createChannel(TestWorld.sibling)) == .topicMismatch)
        #expect(harness.reason(harness.broadcast(TestWorld.sibling, channel: "dHN0LXNyY2gtY2hubA==")) == .topicMismatch)
    }

    @Test func providerTokenReasons() throws {
        let harness = try Harness()
        #expect(harness.reason(harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/all-channels", omitAuthorization: true)) == .missingProviderToken)
        #expect(harness.reason(harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/all-channels", authorization: "bearer x.y.z")) == .invalidProviderToken)
        let stale = try Harness()
        stale.clock.advance(milliseconds: 2 * 3_600_000)
        #expect(stale.reason(stale.createChannel()) == .expiredProviderToken)
    }

    /// "APNs validates the request using either the provided authentication token or your
    /// server's certificate. If authentication succeeds, APNs then validates the channel ID" (A12).
    @Test func authenticationComesBeforeTheChannelAndItsHeaders() throws {
        let harness = try Harness()
        let broadcast = "/4/broadcasts/apps/\(TestWorld.app)"
        let unauthenticated: [(String, String?, [(String, String)])] = [
            ("POST", "not base64!", [("apns-push-type", "liveactivity")]),
            ("POST", nil, [("apns-push-type", "liveactivity")]),
            ("POST", "dHN0LXNyY2gtY2hubA==", [("apns-priority", "7")]),
            ("POST", "dHN0LXNyY2gtY2hubA==", [("apns-push-type", "liveactivity"), ("apns-request-id", "nope")]),
        ]
        for (method, channel, headers) in unauthenticated {
            let outcome = harness.channelAPI(method, broadcast, channel: channel, headers: headers, body: Harness.liveActivityUpdate, omitAuthorization: true)
            #expect(harness.reason(outcome) == .missingProviderToken, "\(channel ?? "no channel") \(headers)")
            #expect(outcome.response?.status == 403)
        }
        for method in ["GET", "DELETE"] {
            #expect(harness.reason(harness.channelAPI(method, Self.channels, channel: "not base64!", omitAuthorization: true)) == .missingProviderToken)
            #expect(harness.reason(harness.channelAPI(method, Self.channels, omitAuthorization: true)) == .missingProviderToken)
            #expect(harness.reason(harness.channelAPI(method, Self.channels, channel: "%%", authorization: "bearer x.y.z")) == .invalidProviderToken)
        }
        #expect(harness.reason(harness.channelAPI("POST", "/1/apps/\(TestWorld.app).push-type.liveactivity/channels", body: Harness.mostRecentConfiguration, omitAuthorization: true)) == .missingProviderToken)
        // Once authenticated, the same channel ids get their own reasons.
        #expect(harness.reason(harness.broadcast(channel: "not base64!")) == .badChannelId)
        #expect(harness.reason(harness.channelAPI("GET", Self.channels)) == .missingChannelId)
    }

    @Test func certificateReasons() throws {
        let untrusted = try Harness(.certificate, certificate: Harness.certificate(trusted: false))
        #expect(untrusted.reason(untrusted.createChannel()) == .badCertificate)
        let wrongEnvironment = try Harness(.certificate, environment: .production, certificate: Harness.certificate(environments: [.development]))
        let outcome = wrongEnvironment.createChannel()
        #expect(wrongEnvironment.reason(outcome) == .badCertificateEnvironment)
        #expect(outcome.actions.contains(.goAway(.badCertificateEnvironment)))
    }

    @Test func featureNotEnabledWhenTheAppHasNoBroadcastCapability() throws {
        let harness = try Harness()
        harness.world.world.add(AppRecord(bundleID: TestWorld.app, teamID: TestWorld.team, broadcastEnabled: false))
        #expect(harness.reason(harness.createChannel()) == .featureNotEnabled)
        #expect(harness.reason(harness.channelAPI("GET", "/1/apps/\(TestWorld.app)/all-channels")) == .featureNotEnabled)
        #expect(harness.reason(harness.broadcast(channel: "dHN0LXNyY2gtY2hubA==")) == .featureNotEnabled)
        #expect(harness.send().response?.status == 200, "device pushes need no broadcast capability")
    }

    @Test(arguments: AuthMode.allCases)
    func methodNotAllowed(mode: AuthMode) throws {
        let harness = try Harness(mode)
        #expect(harness.reason(harness.channelAPI("PUT", Self.channels, body: Harness.mostRecentConfiguration)) == .methodNotAllowed)
        #expect(harness.reason(harness.channelAPI("POST", "/1/apps/\(TestWorld.app)/all-channels")) == .methodNotAllowed)
        #expect(harness.reason(harness.channelAPI("GET", "/4/broadcasts/apps/\(TestWorld.app)")) == .methodNotAllowed)
    }

    @Test(arguments: AuthMode.allCases)
    func badPathOutsideTheListenersRole(mode: AuthMode) throws {
        let harness = try Harness(mode)
        harness.reconnect(role: .channelManagement)
        #expect(harness.reason(harness.send()) == .badPath)
        #expect(harness.reason(harness.broadcast(channel: "dHN0LXNyY2gtY2hubA==")) == .badPath)
        let id = try harness.newChannel()
        harness.reconnect(role: .provider)
        #expect(harness.reason(harness.createChannel()) == .badPath)
        #expect(harness.reason(harness.channelAPI("GET", Self.channels, channel: id)) == .badPath)
        #expect(harness.send().response?.status == 200)
        #expect(harness.broadcast(channel: id).response?.status == 200)
    }

    @Test func duplicateChannelHeadersAreDuplicateHeaders() throws {
        let harness = try Harness()
        let id = try harness.newChannel()
        #expect(harness.reason(harness.channelAPI("GET", Self.channels, channel: id, headers: [("apns-channel-id", id)])) == .duplicateHeaders)
    }

    @Test(arguments: [APNsErrorReason.tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown])
    func injectedFaultsAnswerWithTheRequestID(reason: APNsErrorReason) throws {
        let faults = FaultRules(seed: 1)
        _ = try faults.add(FaultRule(fault: .respond(reason)))
        let harness = try Harness(faults: faults)
        let response = try #require(harness.createChannel().response)
        #expect(response.reason == reason && response.status == reason.status && response.idHeader == .requestID)
        #expect(harness.world.world.channels.all.isEmpty)
    }

    @Test func tooManyProviderTokenUpdates() throws {
        let harness = try Harness()
        harness.createChannel()
        harness.providerToken = try harness.world.token(issuedAt: Harness.start / 1000 + 1)
        #expect(harness.reason(harness.createChannel()) == .tooManyProviderTokenUpdates)
    }
}
