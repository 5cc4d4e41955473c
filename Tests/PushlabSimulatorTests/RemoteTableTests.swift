@testable import PushlabSimulator
import PushlabCore
import Testing

/// Note 003's remote experiment: which of `application:didReceiveRemoteNotification:` and its
/// `fetchCompletionHandler:` variant the app implements.
enum LegacyRemoteCallbacks: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case onlyDidReceiveRemoteNotification
    case onlyFetchCompletionHandlerVariant
    case both

    var testDescription: String { rawValue }

    var implements: Set<AppCallback> {
        switch self {
        case .onlyDidReceiveRemoteNotification: Fixture.delegateBasics.union([.didReceiveRemoteNotification])
        case .onlyFetchCompletionHandlerVariant: Fixture.delegateBasics.union([.didReceiveRemoteNotificationFetch])
        case .both: Fixture.delegateBasics.union([.didReceiveRemoteNotification, .didReceiveRemoteNotificationFetch])
        }
    }

    /// 2.1: the `fetchCompletionHandler:` variant if implemented, otherwise the plain one.
    var expectedCallback: AppCallback {
        self == .onlyDidReceiveRemoteNotification ? .didReceiveRemoteNotification : .didReceiveRemoteNotificationFetch
    }
}

/// The same experiment for `userNotifications`: `willPresentNotification` and/or
/// `didReceiveNotificationResponse`. Every combination also has the fetch variant, which a plain
/// alert must not reach.
enum UserNotificationsCallbacks: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case onlyWillPresent
    case onlyDidReceiveResponse
    case both

    var testDescription: String { rawValue }

    var implements: Set<AppCallback> {
        var callbacks = Fixture.delegateBasics.union([.didReceiveRemoteNotificationFetch])
        if self != .onlyDidReceiveResponse { callbacks.insert(.willPresent) }
        if self != .onlyWillPresent { callbacks.insert(.didReceiveResponse) }
        return callbacks
    }

    var willPresent: AppCallback? { implements.contains(.willPresent) ? .willPresent : nil }
    var didReceiveResponse: AppCallback? { implements.contains(.didReceiveResponse) ? .didReceiveResponse : nil }
}

@Suite("Section 3 table, remote notifications")
struct RemoteTableTests {
    @Test("legacy API", arguments: NoteThreeCase.allCases, LegacyRemoteCallbacks.allCases)
    func legacy(_ situation: NoteThreeCase, _ callbacks: LegacyRemoteCallbacks) throws {
        let h = try SimulatorHarness(.testApp(api: .legacy, state: situation.stateWhenItArrives, implements: callbacks.implements))
        let payload = try Fixture.json(Fixture.alertPayload)
        // Legacy: a launch from the notification hands it over in the launch options only;
        // didReceiveRemoteNotification is not called (note 003).
        let expected = TableExpectation.row(
            situation, foregroundCallback: callbacks.expectedCallback, tapCallback: callbacks.expectedCallback,
            launchKey: CallbackKey.remoteNotificationLaunchKey, payload: payload, launchThenTapCallback: false
        )
        try checkNoteThreeCase(situation, harness: h, expected: expected, payload: payload, trigger: "push", badge: 7) {
            try h.alert()
        }
    }

    @Test("userNotifications API", arguments: NoteThreeCase.allCases, UserNotificationsCallbacks.allCases)
    func userNotifications(_ situation: NoteThreeCase, _ callbacks: UserNotificationsCallbacks) throws {
        let h = try SimulatorHarness(.testApp(api: .userNotifications, state: situation.stateWhenItArrives, implements: callbacks.implements))
        let payload = try Fixture.json(Fixture.alertPayload)
        let expected = TableExpectation.row(
            situation, foregroundCallback: callbacks.willPresent, tapCallback: callbacks.didReceiveResponse,
            launchKey: CallbackKey.remoteNotificationLaunchKey, payload: payload, launchThenTapCallback: true
        )
        try checkNoteThreeCase(situation, harness: h, expected: expected, payload: payload, trigger: "push", badge: 7) {
            try h.alert()
        }
    }

    @Test("Coming to the foreground from the background: applicationWillEnterForeground: comes before the tap's callback")
    func tapFromBackgroundEntersForegroundFirst() throws {
        let h = try SimulatorHarness(.testApp(api: .legacy, state: .background))
        let id = try h.alert()
        let seen = try h.during { try h.tapNotification(id) }.callbacks.map(\.callback)
        let enter = try #require(seen.firstIndex(of: .willEnterForeground))
        let callback = try #require(seen.firstIndex(of: .didReceiveRemoteNotificationFetch))
        #expect(enter < callback)
        #expect(!seen.contains(.didFinishLaunching), "a suspended app is resumed, not launched")
    }

    @Test("Tapping the icon of a suspended app: no callback carries any payload")
    func tapIconCarriesNoPayload() throws {
        let h = try SimulatorHarness(.testApp(api: .legacy, state: .background))
        try h.alert()
        let seen = try h.during { try h.tapIcon() }.callbacks
        #expect(!seen.isEmpty, "the app does come to the foreground")
        #expect(seen.allSatisfy { $0.arguments.userInfo == nil })
        #expect(seen.allSatisfy { $0.arguments.launchOptions == nil || $0.arguments.launchOptions == .object([]) })
    }
}
