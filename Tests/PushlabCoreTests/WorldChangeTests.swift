import PushlabCore
import Testing

/// The world changes at run time (the control API and the simulator will drive this); live
/// connections see the change on their next request.
@Suite("World changes at run time")
struct WorldChangeTests {
    @Test func tokenStateChangesAreSeenByLiveConnections() throws {
        let harness = try Harness(.token)
        let world = harness.world.world
        #expect(harness.reason(harness.send()) == nil)
        #expect(world.unregister(token: TestWorld.devToken, at: 1_767_000_000_000))
        #expect(harness.send().response?.timestamp == 1_767_000_000_000)
        #expect(world.expire(token: TestWorld.devToken.uppercased(), at: 1_767_000_000_001))
        #expect(harness.reason(harness.send()) == .expiredToken)
        #expect(world.reactivate(token: TestWorld.devToken))
        #expect(harness.reason(harness.send()) == nil)
        let before = world.tokenCount
        world.forget(token: TestWorld.devToken)
        #expect(world.tokenCount == before - 1)
        #expect(harness.reason(harness.send()) == .badDeviceToken)
        #expect(!world.unregister(token: TestWorld.devToken, at: 0), "unknown tokens report false")
    }

    @Test func registeringATokenMakesItReachable() throws {
        let harness = try Harness(.token)
        let token = String(repeating: "7c", count: 32)
        #expect(harness.reason(harness.send(token: token)) == .badDeviceToken)
        harness.world.world.register([DeviceTokenRecord(token: token, bundleID: TestWorld.app, environment: .development)])
        #expect(harness.reason(harness.send(token: token)) == nil)
    }

    @Test func addingAKeyLetsItsTokensIn() throws {
        let harness = try Harness(.token)
        let extra = harness.world.signers["TEAMKEY002"]!
        harness.world.world.removeKey("TEAMKEY002")
        harness.providerToken = try harness.world.token(keyID: "TEAMKEY002", issuedAt: Harness.start / 1000)
        #expect(harness.reason(harness.send()) == .invalidProviderToken)
        harness.world.world.add(SigningKey(keyID: "TEAMKEY002", teamID: TestWorld.team, verifier: extra))
        harness.reconnect()
        #expect(harness.reason(harness.send()) == nil)
    }
}
