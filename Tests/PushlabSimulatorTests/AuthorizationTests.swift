@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 4 (and 2.2's "if authorized"): what the user allowed the app to show.
@Suite("4 Authorization")
struct AuthorizationTests {
    @Test("denied / notDetermined: no banner, no sound, no badge, nothing in Notification Center",
          arguments: [NotificationAuthorization.Status.denied, .notDetermined])
    func nothingShown(_ status: NotificationAuthorization.Status) throws {
        let h = try SimulatorHarness(.testApp(state: .background, authorization: NotificationAuthorization(status: status)))
        let seen = try h.during { try h.alert() }
        #expect(seen.banners.isEmpty)
        #expect(seen.sounds.isEmpty)
        #expect(seen.badges.isEmpty)
        #expect(try h.app().badge == 0)
        #expect(try h.notificationCenterIDs().isEmpty)
        #expect(seen.callbacks.isEmpty)
    }

    @Test("denied: remote registration still yields a device token")
    func deniedStillRegisters() throws {
        let h = try SimulatorHarness(.testApp(state: .notRunning, authorization: .denied))
        let seen = try h.during { try h.tapIcon() }.callbacks
        let registration = try #require(seen.first { $0.callback == .didRegisterForRemoteNotifications })
        #expect(registration.arguments.deviceToken == (try h.token()))
        #expect(!seen.contains { $0.callback == .didFailToRegisterForRemoteNotifications })
    }

    @Test("denied: background (silent) pushes still work")
    func deniedSilentStillWorks() throws {
        let h = try SimulatorHarness(.testApp(state: .background, authorization: .denied))
        let seen = try h.during { try h.silent() }
        #expect(seen.notificationCallbacks.map(\.step) == [CallbackStep(.didReceiveRemoteNotificationFetch, .background)])
    }

    enum Kind: String, CaseIterable, Sendable { case alert, sound, badge }

    @Test("Each kind can be off on its own", arguments: Kind.allCases)
    func kindOff(_ off: Kind) throws {
        let authorization = NotificationAuthorization(status: .authorized, alert: off != .alert, badge: off != .badge, sound: off != .sound)
        let h = try SimulatorHarness(.testApp(state: .background, authorization: authorization))
        let seen = try h.during { try h.alert() }
        #expect(seen.banners.count == (off == .alert ? 0 : 1), "banner")
        #expect(seen.sounds == (off == .sound ? [] : ["default"]), "sound")
        #expect(seen.badges == (off == .badge ? [] : [7]), "badge")
        #expect(try h.app().badge == (off == .badge ? 0 : 7))
    }

    /// The reference lists `provisional` without its rule; Apple: delivered quietly to
    /// Notification Center only, with no banner, sound or badge. This checks Apple's rule.
    @Test("provisional: Notification Center only, quietly")
    func provisional() throws {
        let h = try SimulatorHarness(.testApp(state: .background, authorization: NotificationAuthorization(status: .provisional)))
        var id = ""
        let seen = try h.during { id = try h.alert() }
        #expect(try h.notificationCenterIDs() == [id])
        #expect(seen.banners.isEmpty)
        #expect(seen.sounds.isEmpty)
        #expect(seen.badges.isEmpty)
    }
}
