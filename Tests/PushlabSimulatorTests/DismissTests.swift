@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 3: "Dismissing (clearing) a notification calls didReceiveNotificationResponse with
/// the dismiss action id only if the category has customDismissAction; otherwise nothing is called."
@Suite("3 Dismissing and clearing")
struct DismissTests {
    private static func app(customDismiss: Bool, api: NotificationAPI = .userNotifications) -> AppInstall {
        .testApp(api: api, state: .background, categories: [NotificationCategory(identifier: "alert", actions: [Actions.delete], customDismissAction: customDismiss)])
    }

    @Test("With customDismissAction: didReceiveNotificationResponse with the dismiss action id")
    func customDismiss() throws {
        let h = try SimulatorHarness(Self.app(customDismiss: true))
        let id = try h.push(Actions.payload)
        let seen = try h.during { try h.dismiss(id) }
        let callbacks = seen.notificationCallbacks
        #expect(callbacks.map(\.callback) == [.didReceiveResponse])
        #expect(callbacks.first?.arguments.actionIdentifier == CallbackKey.dismissActionIdentifier)
        #expect(callbacks.first?.notificationID == id)
        #expect(try h.notificationCenterIDs().isEmpty)
        #expect(try h.app().state == .background, "dismissing does not bring the app forward")
    }

    @Test("Without customDismissAction (or without a category): nothing is called; the entry goes",
          arguments: [Actions.payload, Actions.noCategoryPayload])
    func plainDismiss(_ payload: String) throws {
        let h = try SimulatorHarness(Self.app(customDismiss: false))
        let id = try h.push(payload)
        let seen = try h.during { try h.dismiss(id) }
        #expect(seen.callbacks.isEmpty)
        #expect(try h.notificationCenterIDs().isEmpty)
        #expect(seen.notificationCenterChanges.map(\.reason) == [.dismissed])
    }

    @Test("legacy has no dismiss callback")
    func legacyDismiss() throws {
        let h = try SimulatorHarness(Self.app(customDismiss: true, api: .legacy))
        let id = try h.push(Actions.payload)
        let seen = try h.during { try h.dismiss(id) }
        #expect(seen.callbacks.isEmpty)
        #expect(try h.notificationCenterIDs().isEmpty)
    }

    @Test("Clear all: every entry goes; each customDismissAction one is reported as dismissed")
    func clearAll() throws {
        let h = try SimulatorHarness(Self.app(customDismiss: true))
        let withCategory = try h.push(Actions.payload)
        let plain = try h.push(Actions.noCategoryPayload)
        let seen = try h.during { try h.clearAll() }
        #expect(try h.notificationCenterIDs().isEmpty)
        #expect(Set(seen.notificationCenterChanges.compactMap(\.id)) == [withCategory, plain])
        #expect(seen.notificationCenterChanges.allSatisfy { $0.change == .removed && $0.reason == .clearedAll })
        let callbacks = seen.notificationCallbacks
        #expect(callbacks.map(\.callback) == [.didReceiveResponse])
        #expect(callbacks.first?.notificationID == withCategory)
        #expect(callbacks.first?.arguments.actionIdentifier == CallbackKey.dismissActionIdentifier)
    }

    @Test("Clear all without an app clears every app's entries")
    func clearAllApps() throws {
        let h = try SimulatorHarness(apps: [.testApp("com.example.a"), .testApp("com.example.b")])
        try h.alert(to: "com.example.a")
        try h.alert(to: "com.example.b")
        try h.clearAll(nil)
        #expect(try h.notificationCenterIDs("com.example.a").isEmpty)
        #expect(try h.notificationCenterIDs("com.example.b").isEmpty)
    }

    @Test("Dismissing or tapping something not in Notification Center is an error")
    func missingEntry() throws {
        let h = try SimulatorHarness(Self.app(customDismiss: true))
        #expect(throws: SimulatorError.self) { try h.dismiss("A0000000-0000-4000-8000-999999999999") }
        #expect(throws: SimulatorError.self) { try h.tapNotification(nil) }
    }
}
