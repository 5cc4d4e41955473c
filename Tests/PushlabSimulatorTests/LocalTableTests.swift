@testable import PushlabSimulator
import PushlabCore
import Testing

/// Note 003's local experiment: A = `application:didReceiveLocalNotification:`,
/// B = `application:handleActionWithIdentifier:forLocalNotification:completionHandler:`.
/// B is for action buttons only, so a plain tap never reaches it.
enum LegacyLocalCallbacks: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case onlyDidReceiveLocalNotification
    case onlyHandleActionForLocalNotification
    case both

    var testDescription: String { rawValue }

    var implements: Set<AppCallback> {
        switch self {
        case .onlyDidReceiveLocalNotification: Fixture.delegateBasics.union([.didReceiveLocalNotification])
        case .onlyHandleActionForLocalNotification: Fixture.delegateBasics.union([.handleLocalAction])
        case .both: Fixture.delegateBasics.union([.didReceiveLocalNotification, .handleLocalAction])
        }
    }

    var delivering: AppCallback? { self == .onlyHandleActionForLocalNotification ? nil : .didReceiveLocalNotification }
}

@Suite("Section 3 table, local notifications (section 6)")
struct LocalTableTests {
    private static let reminder = LocalNotification.alert("reminder", .timeInterval(seconds: 5, repeats: false))

    /// Schedules the reminder and lets the clock fire it.
    private static func fire(_ h: SimulatorHarness) throws -> String {
        try h.schedule(reminder)
        try h.advance(5 * Fixture.second)
        return reminder.identifier
    }

    @Test("legacy API", arguments: NoteThreeCase.allCases, LegacyLocalCallbacks.allCases)
    func legacy(_ situation: NoteThreeCase, _ callbacks: LegacyLocalCallbacks) throws {
        let h = try SimulatorHarness(.testApp(api: .legacy, state: situation.stateWhenItArrives, implements: callbacks.implements))
        let userInfo = Self.reminder.content.userInfo
        let expected = TableExpectation.row(
            situation, foregroundCallback: callbacks.delivering, tapCallback: callbacks.delivering,
            launchKey: CallbackKey.localNotificationLaunchKey, payload: userInfo, launchThenTapCallback: false
        )
        try checkNoteThreeCase(situation, harness: h, expected: expected, payload: userInfo, trigger: "timeInterval", badge: 3) {
            try Self.fire(h)
        }
    }

    @Test("userNotifications API", arguments: NoteThreeCase.allCases, UserNotificationsCallbacks.allCases)
    func userNotifications(_ situation: NoteThreeCase, _ callbacks: UserNotificationsCallbacks) throws {
        let h = try SimulatorHarness(.testApp(api: .userNotifications, state: situation.stateWhenItArrives, implements: callbacks.implements))
        let userInfo = Self.reminder.content.userInfo
        let expected = TableExpectation.row(
            situation, foregroundCallback: callbacks.willPresent, tapCallback: callbacks.didReceiveResponse,
            launchKey: CallbackKey.localNotificationLaunchKey, payload: userInfo, launchThenTapCallback: true
        )
        // Under userNotifications the trigger is not a push: the local trigger's kind.
        try checkNoteThreeCase(situation, harness: h, expected: expected, payload: userInfo, trigger: "timeInterval", badge: 3) {
            try Self.fire(h)
        }
    }

    @Test("willPresentNotification of a local notification names its non-push trigger")
    func willPresentTrigger() throws {
        let h = try SimulatorHarness(.testApp(state: .foreground))
        let seen = try h.during { _ = try Self.fire(h) }.notificationCallbacks
        #expect(seen.map(\.callback) == [.willPresent])
        #expect(seen.first?.arguments.trigger == "timeInterval")
    }
}
