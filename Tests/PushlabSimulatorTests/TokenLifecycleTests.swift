@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 1 (`deviceToken`) and 5 (uninstall): tokens and the APNs world.
@Suite("Device tokens: install, reinstall, uninstall")
struct TokenLifecycleTests {
    private static func isTokenShaped(_ token: String) -> Bool {
        token.count == 64 && token.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    @Test("An install gets 32 random bytes as 64 lower-case hex, registered with its device")
    func installToken() throws {
        let h = try SimulatorHarness(apps: [.testApp("com.example.a"), .testApp("com.example.b")])
        let a = try h.token("com.example.a")
        let b = try h.token("com.example.b")
        #expect(Self.isTokenShaped(a))
        #expect(Self.isTokenShaped(b))
        #expect(a != b, "unique per device + app")
        let record = try #require(h.world.token(a))
        #expect(record.state == .active)
        #expect(record.deviceID == h.deviceID)
        #expect(record.bundleID == "com.example.a")
        #expect(record.environment == .development)
    }

    @Test("Reinstall: a new token; the old one is Unregistered from that moment")
    func reinstall() throws {
        let h = try SimulatorHarness(.testApp(state: .foreground))
        let old = try h.token()
        try h.advance(90 * Fixture.minute)
        let reinstalled = try h.simulator.reinstall(Fixture.bundleID, on: h.deviceID)
        let new = reinstalled.deviceToken
        #expect(new != old)
        #expect(Self.isTokenShaped(new))
        #expect(try h.token() == new)
        #expect(h.world.token(old)?.state == .unregistered(since: Fixture.start + 90 * Fixture.minute))
        let record = try #require(h.world.token(new))
        #expect(record.state == .active)
        #expect(record.deviceID == h.deviceID)
        #expect(try h.app().state == .notRunning)
    }

    @Test("After a reinstall the app learns its new token at its next launch")
    func reinstallAnnouncesToken() throws {
        let h = try SimulatorHarness(.testApp(state: .notRunning))
        try h.tapIcon()
        let new = try h.simulator.reinstall(Fixture.bundleID, on: h.deviceID).deviceToken
        let seen = try h.during { try h.tapIcon() }.callbacks
        #expect(seen.first { $0.callback == .didRegisterForRemoteNotifications }?.arguments.deviceToken == new)
    }

    @Test("Uninstall: the token is Unregistered with the time; the app is gone")
    func uninstall() throws {
        let h = try SimulatorHarness(.testApp())
        let token = try h.token()
        try h.advance(Fixture.day)
        try h.simulator.uninstall(Fixture.bundleID, from: h.deviceID)
        #expect(h.world.token(token)?.state == .unregistered(since: Fixture.start + Fixture.day))
        #expect(try h.device().app(Fixture.bundleID) == nil)
    }

    @Test("What APNs stored for an offline device goes with a reinstall")
    func reinstallDiscardsStored() throws {
        let h = try SimulatorHarness(.testApp()) { $0.online = false }
        let id = try h.alert()
        try h.simulator.reinstall(Fixture.bundleID, on: h.deviceID)
        #expect(h.all.about(id).discards.map(\.reason) == [.appUninstalled])
        let seen = try h.during { try h.simulator.updateDevice(h.deviceID, online: true) }
        #expect(seen.delivered.isEmpty)
    }
}
