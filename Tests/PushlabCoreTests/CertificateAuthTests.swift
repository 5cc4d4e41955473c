import PushlabCore
import Testing

@Suite("Certificate authentication (reference section 5)")
struct CertificateAuthTests {
    @Test func topicsComeFromTheUIDAndTheTopicList() throws {
        let harness = try Harness(.certificate)
        #expect(harness.reason(harness.send(topic: TestWorld.app)) == nil)
        #expect(harness.reason(harness.send(token: TestWorld.voipToken, topic: TestWorld.app + ".voip")) == nil)
        #expect(harness.reason(harness.send(topic: TestWorld.sibling)) == .badTopic)
        #expect(harness.reason(harness.send(topic: TestWorld.app + ".push-type.liveactivity")) == .badTopic, "not in the certificate's list")
    }

    @Test func authorizationIsIgnored() throws {
        let harness = try Harness(.certificate)
        let request = APNsRequest(
            path: "/3/device/\(TestWorld.devToken)",
            headers: [("apns-topic", TestWorld.app), ("authorization", "bearer garbage")], body: Array("{}".utf8)
        )
        #expect(harness.connection.handle(request).response?.status == 200)
    }

    @Test func missingTopicDefaultsToTheUIDOnlyForSingleTopicCertificates() throws {
        let multi = try Harness(.certificate)
        #expect(multi.reason(multi.send(topic: nil)) == .missingTopic)
        let single = try Harness(.certificate, certificate: Harness.certificate(topics: nil))
        #expect(single.reason(single.send(topic: nil)) == nil)
        #expect(single.sink.accepted.first?.topic == TestWorld.app)
        #expect(single.reason(single.send(topic: TestWorld.app + ".voip", headers: [("apns-push-type", "voip")])) == .badTopic)
        var policy = APNsPolicy()
        policy.multiTopicCertificateDefaultsToAppTopic = true
        let lenient = try Harness(.certificate, policy: policy)
        #expect(lenient.reason(lenient.send(topic: nil)) == nil)
    }

    @Test func tokenAuthAlwaysNeedsATopic() throws {
        let harness = try Harness(.token)
        #expect(harness.reason(harness.send(topic: nil)) == .missingTopic)
    }

    @Test func wrongEnvironmentCertificateGetsGoAwayOnConnect() throws {
        let harness = try Harness(.certificate, environment: .production, certificate: Harness.certificate(environments: [.development]))
        #expect(harness.startActions == [.goAway(.badCertificateEnvironment)])
        let outcome = harness.send(token: TestWorld.prodToken)
        #expect(outcome.response?.reason == .badCertificateEnvironment)
        #expect(outcome.actions.contains(.goAway(.badCertificateEnvironment)))
        let matching = try Harness(.certificate, environment: .development, certificate: Harness.certificate(environments: [.development]))
        #expect(matching.startActions.isEmpty)
    }

    @Test func appleHostInAuthorityDecidesTheEnvironment() throws {
        let harness = try Harness(.certificate, environment: .development, certificate: Harness.certificate(environments: [.development]))
        let outcome = harness.send(authority: "api.push.apple.com")
        #expect(outcome.response?.reason == .badCertificateEnvironment)
    }

    @Test func untrustedOrExpiredCertificateIsBadCertificate() throws {
        let untrusted = try Harness(.certificate, certificate: Harness.certificate(trusted: false))
        #expect(untrusted.reason(untrusted.send()) == .badCertificate)
        let expiring = try Harness(.certificate, certificate: Harness.certificate(notAfter: Harness.start + 60_000))
        #expect(expiring.reason(expiring.send()) == nil)
        expiring.clock.advance(seconds: 61)
        #expect(expiring.reason(expiring.send()) == .badCertificate, "expiry follows the server's clock")
    }

    @Test func identityReadsApplesExtensions() {
        let identity = CertificateIdentity(Harness.certificate())
        #expect(identity.uid == TestWorld.app)
        #expect(identity.topics == [TestWorld.app, TestWorld.app + ".voip", TestWorld.app + ".complication"])
        #expect(identity.environments == [.development, .production])
        let bare = CertificateIdentity(Harness.certificate(topics: nil, environments: []))
        #expect(bare.topics == [TestWorld.app] && !bare.listsTopics && bare.environments.isEmpty)
    }
}
