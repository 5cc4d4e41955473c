@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 2.1: an alert notification while the app is `foreground` or `inactive`.
@Suite("2.1 Alert in the foreground")
struct ForegroundAlertTests {
    @Test("legacy: no banner, no sound, no badge, no entry; the callback runs without user action", arguments: [AppState.foreground, .inactive])
    func legacyForeground(_ state: AppState) throws {
        let h = try SimulatorHarness(.testApp(api: .legacy, state: state))
        var id = ""
        let seen = try h.during { id = try h.alert() }
        #expect(seen.notificationCallbacks.map(\.step) == [CallbackStep(.didReceiveRemoteNotificationFetch, state)])
        #expect(seen.notificationCallbacks.first?.notificationID == id)
        #expect(seen.banners.isEmpty)
        #expect(seen.sounds.isEmpty)
        #expect(seen.badges.isEmpty)
        #expect(try h.app().badge == 0)
        #expect(try h.notificationCenterIDs().isEmpty)
        #expect(try h.app().state == state)
    }

    /// What `willPresentOptions` (the completion handler's answer) shows (note 002).
    struct Presentation: Sendable, CustomTestStringConvertible {
        var options: PresentationOptions
        var testDescription: String { options.isEmpty ? "empty" : options.names.joined(separator: "+") }
    }

    static let presentations: [Presentation] = [
        [], [.banner], [.list], [.sound], [.badge], [.banner, .list], [.banner, .list, .sound, .badge],
    ].map(Presentation.init(options:))

    @Test("userNotifications: willPresentNotification, then what willPresentOptions says; empty shows nothing", arguments: presentations)
    func willPresentOptions(_ presentation: Presentation) throws {
        let options = presentation.options
        let h = try SimulatorHarness(.testApp(api: .userNotifications, state: .foreground, willPresentOptions: options))
        var id = ""
        let seen = try h.during { id = try h.alert() }
        #expect(seen.notificationCallbacks.map(\.step) == [CallbackStep(.willPresent, .foreground)])
        #expect(seen.banners.count == (options.contains(.banner) ? 1 : 0), "banner")
        #expect(seen.sounds == (options.contains(.sound) ? ["default"] : []), "sound")
        #expect(seen.badges == (options.contains(.badge) ? [7] : []), "badge")
        #expect(try h.app().badge == (options.contains(.badge) ? 7 : 0))
        #expect(try h.notificationCenterIDs() == (options.contains(.list) ? [id] : []), "list = Notification Center")
    }

    @Test("userNotifications, inactive counts as foreground: willPresentNotification, no banner by default")
    func userNotificationsInactive() throws {
        let h = try SimulatorHarness(.testApp(api: .userNotifications, state: .inactive))
        let seen = try h.during { try h.alert() }
        #expect(seen.notificationCallbacks.map(\.step) == [CallbackStep(.willPresent, .inactive)])
        #expect(seen.banners.isEmpty)
        #expect(try h.notificationCenterIDs().isEmpty)
    }

    @Test("userNotifications in the foreground: the fetch variant is not called for a plain alert")
    func plainAlertIsNotAFetch() throws {
        let h = try SimulatorHarness(.testApp(api: .userNotifications, state: .foreground, willPresentOptions: [.banner]))
        let seen = try h.during { try h.alert() }
        #expect(!seen.callbacks.map(\.callback).contains(.didReceiveRemoteNotificationFetch))
    }

    @Test("willPresentOptions still obey authorization: a denied app shows nothing even when the app asks for a banner")
    func willPresentRespectsAuthorization() throws {
        let h = try SimulatorHarness(.testApp(state: .foreground, authorization: .denied, willPresentOptions: [.banner, .list, .sound, .badge]))
        let seen = try h.during { try h.alert() }
        #expect(seen.notificationCallbacks.map(\.callback) == [.willPresent])
        #expect(seen.banners.isEmpty)
        #expect(seen.sounds.isEmpty)
        #expect(seen.badges.isEmpty)
        #expect(try h.notificationCenterIDs().isEmpty)
    }
}
