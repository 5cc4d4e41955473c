import Foundation
@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 5: APNs between provider and device.
@Suite("5 Offline storage, expiration and collapse id")
struct OfflineStorageTests {
    private static func offline(_ apps: [AppInstall] = [.testApp()]) throws -> SimulatorHarness {
        try SimulatorHarness(apps: apps) { $0.online = false }
    }

    private func goOnline(_ h: SimulatorHarness) throws -> [Observation] {
        try h.during { try h.simulator.updateDevice(h.deviceID, online: true) }
    }

    /// `apns-expiration` is in epoch seconds.
    private static func seconds(_ time: EpochMilliseconds) -> Int64 { time / 1000 }

    @Test("Offline: stored, not delivered; delivered when the device comes online")
    func storedThenDelivered() throws {
        let h = try Self.offline()
        var id = ""
        let stored = try h.during { id = try h.alert() }
        #expect(stored.map(\.kind) == [.stored])
        #expect(stored.banners.isEmpty)
        try h.advance(Fixture.hour)
        let seen = try goOnline(h)
        #expect(seen.about(id).delivered.count == 1)
        #expect(seen.banners.count == 1)
        #expect(seen.banners.first?.time == Fixture.start + Fixture.hour)
        #expect(try h.notificationCenterIDs() == [id])
    }

    @Test("Offline: one per app; a newer one replaces the stored one, which is discarded as replaced")
    func newerReplacesOlder() throws {
        let h = try Self.offline()
        let older = try h.alert()
        let newer = try h.alert()
        let discards = h.all.about(older).discards
        #expect(discards.count == 1)
        #expect(discards.first?.reason == .replaced)
        #expect(discards.first?.replacedBy == newer)
        #expect(h.all.about(newer).contains { $0.event == .stored(expiresAt: $0.time + SimulatorSettings().storageMilliseconds, replacing: older) })
        let seen = try goOnline(h)
        #expect(seen.delivered.map(\.notificationID) == [newer])
        #expect(try h.notificationCenterIDs() == [newer])
    }

    @Test("Offline: each app keeps its own stored notification")
    func perApp() throws {
        let h = try Self.offline([.testApp("com.example.a"), .testApp("com.example.b")])
        let a = try h.alert(to: "com.example.a")
        let b = try h.alert(to: "com.example.b")
        let seen = try goOnline(h)
        #expect(Set(seen.delivered.compactMap(\.notificationID)) == [a, b])
        #expect(h.all.discards.isEmpty)
    }

    @Test("apns-expiration 0: discarded when the device is offline, delivered when online")
    func expirationZero() throws {
        let h = try Self.offline()
        var id = ""
        let seen = try h.during { id = try h.alert(expiration: 0) }
        #expect(seen.about(id).discards.map(\.reason) == [.deliverOnce])
        #expect(try goOnline(h).delivered.isEmpty)

        let online = try h.alert(expiration: 0)
        #expect(try h.notificationCenterIDs() == [online])
    }

    @Test("A non-zero expiration that passes while offline: discarded, not delivered on reconnect")
    func expiresWhileOffline() throws {
        let h = try Self.offline()
        let id = try h.alert(expiration: Self.seconds(Fixture.start + Fixture.hour))
        try h.advance(2 * Fixture.hour)
        let discards = h.all.about(id).discards
        #expect(discards.map(\.reason) == [.expired])
        #expect(try goOnline(h).delivered.isEmpty)
        #expect(try h.notificationCenterIDs().isEmpty)
    }

    @Test("An expiration already in the past when an offline device's push arrives: discarded")
    func alreadyExpired() throws {
        let h = try Self.offline()
        let id = try h.alert(expiration: Self.seconds(Fixture.start - Fixture.minute))
        #expect(h.all.about(id).discards.map(\.reason) == [.expired])
        #expect(try goOnline(h).delivered.isEmpty)
    }

    @Test("An expiration still ahead at reconnect: delivered")
    func notYetExpired() throws {
        let h = try Self.offline()
        let id = try h.alert(expiration: Self.seconds(Fixture.start + Fixture.hour))
        try h.advance(30 * Fixture.minute)
        #expect(try goOnline(h).delivered.map(\.notificationID) == [id])
    }

    @Test("Collapse id: the newer notification replaces the shown one in Notification Center")
    func collapse() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        let first = try h.alert(collapseID: "score")
        let other = try h.alert(collapseID: "weather")
        var second = ""
        let seen = try h.during { second = try h.alert(#"{"aps":{"alert":"2-1"}}"#, collapseID: "score") }
        #expect(try h.notificationCenterIDs() == [other, second])
        #expect(seen.notificationCenterChanges.contains { $0.change == .removed && $0.reason == .collapsed && $0.id == first })
        #expect(try h.app().notificationCenter.last?.content.body == "2-1")
    }

    @Test("Without a collapse id every notification gets its own entry")
    func noCollapse() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        let first = try h.alert()
        let second = try h.alert()
        #expect(try h.notificationCenterIDs() == [first, second])
    }

    /// A held push is saved with its apns-id as text under "apnsID", in every form, and reads
    /// back as the same push.
    @Test func aHeldPushIsSavedWithItsIDAsText() throws {
        for text in ["8E1B6B5E-0C6B-4A53-9C8E-4B6B1E2D3F40", "8e1b6b5e-0c6b-4a53-9c8e-4b6b1e2d3f40", "not-a-uuid"] {
            let push = PendingPush(
                apnsID: text, receivedAt: 1_000, pushType: .alert, priority: 10, expiresAt: 2_000, collapseID: nil,
                content: NotificationContent(title: "t")
            )
            let data = try JSONEncoder().encode(push)
            let fields = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(fields["apnsID"] as? String == text)
            #expect(try JSONDecoder().decode(PendingPush.self, from: data) == push)
        }
    }
}
