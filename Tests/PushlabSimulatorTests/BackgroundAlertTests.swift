@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 2.2: an alert notification while the app is suspended or not running.
@Suite("2.2 Alert in the background or not running")
struct BackgroundAlertTests {
    @Test("Banner, sound, badge and Notification Center; no callback; the app is not woken",
          arguments: [AppState.background, .notRunning], NotificationAPI.allCases)
    func shownWithoutCallback(_ state: AppState, _ api: NotificationAPI) throws {
        let h = try SimulatorHarness(.testApp(api: api, state: state))
        var id = ""
        let seen = try h.during { id = try h.alert() }
        #expect(seen.callbacks.isEmpty, "the app gets no callback yet")
        let banner = try #require(seen.banners.first)
        #expect(banner.event == .banner(title: "Hello", subtitle: nil, body: "World", actions: []))
        #expect(banner.notificationID == id)
        #expect(seen.sounds == ["default"])
        #expect(seen.badges == [7])
        #expect(try h.app().badge == 7)
        #expect(try h.notificationCenterIDs() == [id])
        #expect(try h.app().state == state)
        #expect(seen.filter { $0.kind == .appState }.isEmpty)
    }

    @Test("No sound unless the payload names one; no badge unless the payload has one")
    func soundAndBadgeOnlyWhenNamed() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        let seen = try h.during { try h.alert(#"{"aps":{"alert":"Just text"}}"#) }
        #expect(seen.banners.count == 1)
        #expect(seen.sounds.isEmpty)
        #expect(seen.badges.isEmpty)
        #expect(try h.app().badge == 0)
    }

    @Test("A newer notification adds a second entry; the badge takes the newest value")
    func entriesAccumulate() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        let first = try h.alert()
        let second = try h.alert(#"{"aps":{"alert":"again","badge":8}}"#)
        #expect(try h.notificationCenterIDs() == [first, second])
        #expect(try h.app().badge == 8)
    }

    @Test("Tapping one entry removes only that entry")
    func tapRemovesOnlyThatEntry() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        let first = try h.alert()
        let second = try h.alert()
        let removed = try h.during { try h.tapNotification(first) }.notificationCenterChanges
        #expect(try h.notificationCenterIDs() == [second])
        #expect(removed.count == 1)
        #expect(removed.first?.change == .removed)
        #expect(removed.first?.reason == .tapped)
        #expect(removed.first?.id == first)
    }
}
