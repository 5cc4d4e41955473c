@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 3, "Action buttons" (notes 000, 003, 004).
enum Actions {
    static let reply = NotificationCategory.Action(identifier: "reply", title: "Reply", activation: .background, textInput: true)
    static let open = NotificationCategory.Action(identifier: "finish", title: "Done", activation: .foreground)
    static let delete = NotificationCategory.Action(identifier: "delete", title: "Delete", activation: .background, destructive: true)
    static let secure = NotificationCategory.Action(identifier: "secure", title: "Pay", activation: .background, authenticationRequired: true)
    static let category = NotificationCategory(identifier: "alert", actions: [reply, open, delete, secure])

    static let payload = #"{"aps":{"alert":"推送内容","sound":"default","badge":0,"category":"alert"},"ref":9}"#
    static let unknownCategoryPayload = #"{"aps":{"alert":"extra","category":"other"}}"#
    static let noCategoryPayload = #"{"aps":{"alert":"extra"}}"#
}

/// Which of note 003's action callbacks a legacy app implements.
enum LegacyActionCallbacks: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case onlyCompletionHandler
    case onlyWithResponseInfo
    case both

    var testDescription: String { rawValue }

    func implements(local: Bool) -> Set<AppCallback> {
        let (plain, withResponse): (AppCallback, AppCallback) = local
            ? (.handleLocalAction, .handleLocalActionWithResponseInfo)
            : (.handleRemoteAction, .handleRemoteActionWithResponseInfo)
        switch self {
        case .onlyCompletionHandler: return Fixture.delegateBasics.union([plain])
        case .onlyWithResponseInfo: return Fixture.delegateBasics.union([withResponse])
        case .both: return Fixture.delegateBasics.union([plain, withResponse])
        }
    }
}

@Suite("3 Action buttons")
struct ActionButtonTests {
    /// In the foreground the app lists what it is shown (willPresentOptions), so there is an entry to act on.
    private static func app(_ api: NotificationAPI = .legacy, state: AppState, implements: Set<AppCallback>? = nil, categories: [NotificationCategory] = [Actions.category]) -> AppInstall {
        .testApp(api: api, state: state, implements: implements, categories: categories, willPresentOptions: [.banner, .list])
    }

    @Test("Buttons only when aps.category names a registered category")
    func buttonsNeedRegisteredCategory() throws {
        let h = try SimulatorHarness(Self.app(state: .background))
        let seen = try h.during { try h.push(Actions.payload) }
        #expect(seen.banners.first?.event == .banner(title: nil, subtitle: nil, body: "推送内容", actions: ["reply", "finish", "delete", "secure"]))

        for payload in [Actions.unknownCategoryPayload, Actions.noCategoryPayload] {
            var id = ""
            let shown = try h.during { id = try h.push(payload) }
            #expect(shown.banners.first?.event == .banner(title: nil, subtitle: nil, body: "extra", actions: []))
            let error = #expect(throws: SimulatorError.self) { try h.tapAction("finish", on: id) }
            #expect(error?.kind == .conflict)
            #expect(try h.notificationCenterIDs().contains(id), "a refused tap leaves the entry")
        }
    }

    @Test("An action the category does not have is an error")
    func unknownAction() throws {
        let h = try SimulatorHarness(Self.app(state: .background))
        let id = try h.push(Actions.payload)
        let error = #expect(throws: SimulatorError.self) { try h.tapAction("archive", on: id) }
        #expect(error?.kind == .notFound)
    }

    @Test("legacy, background activation: the callback runs without bringing the app to the foreground")
    func backgroundActivation() throws {
        let h = try SimulatorHarness(Self.app(state: .background))
        let id = try h.push(Actions.payload)
        let seen = try h.during { try h.tapAction("delete", on: id) }
        #expect(seen.notificationCallbacks.map(\.step) == [CallbackStep(.handleRemoteActionWithResponseInfo, .background)])
        #expect(!seen.callbacks.map(\.callback).contains(.willEnterForeground))
        #expect(seen.callbacks.first?.arguments.actionIdentifier == "delete")
        #expect(seen.callbacks.first?.arguments.userInfo == (try Fixture.json(Actions.payload)))
        #expect(try h.app().state == .background)
        #expect(try h.notificationCenterIDs().isEmpty, "the acted-on notification leaves Notification Center")
    }

    @Test("legacy, foreground activation: the app is brought forward first, then the callback")
    func foregroundActivation() throws {
        let h = try SimulatorHarness(Self.app(state: .background))
        let id = try h.push(Actions.payload)
        let seen = try h.during { try h.tapAction("finish", on: id) }.callbacks
        let enter = try #require(seen.firstIndex { $0.callback == .willEnterForeground })
        let action = try #require(seen.firstIndex { $0.callback == .handleRemoteActionWithResponseInfo })
        #expect(enter < action)
        #expect(seen[action].appState != .background)
        #expect(try h.app().state == .foreground)
    }

    @Test("Not running + foreground action: didFinishLaunching with EMPTY launch options, then the action callback (note 003)",
          arguments: NotificationAPI.allCases)
    func notRunningForegroundAction(_ api: NotificationAPI) throws {
        let h = try SimulatorHarness(Self.app(api, state: .notRunning))
        let id = try h.push(Actions.payload)
        let seen = try h.during { try h.tapAction("finish", on: id) }.notificationCallbacks
        let expectedCallback: AppCallback = api == .legacy ? .handleRemoteActionWithResponseInfo : .didReceiveResponse
        #expect(seen.map(\.step) == [CallbackStep(.didFinishLaunching, .inactive), CallbackStep(expectedCallback, .inactive)])
        #expect(seen.first?.arguments.launchOptions == .object([]))
        #expect(seen.last?.arguments.actionIdentifier == "finish")
        #expect(try h.app().state == .foreground)
    }

    @Test("Not running + background action: launched into the background with empty launch options, then the callback")
    func notRunningBackgroundAction() throws {
        let h = try SimulatorHarness(Self.app(state: .notRunning))
        let id = try h.push(Actions.payload)
        let seen = try h.during { try h.tapAction("delete", on: id) }.notificationCallbacks
        #expect(seen.map(\.step) == [CallbackStep(.didFinishLaunching, .background), CallbackStep(.handleRemoteActionWithResponseInfo, .background)])
        #expect(seen.first?.arguments.launchOptions == .object([]))
        #expect(try h.app().state == .background)
    }

    /// iOS 9 added the `withResponseInfo:` variants. The reference does not say which runs when
    /// an app has both; the simulator prefers `withResponseInfo:` from iOS 9 on, as Apple does.
    @Test("legacy remote action: which callback runs, by what the app implements and the iOS version",
          arguments: LegacyActionCallbacks.allCases, ["8.4", "9.0", "17.0"])
    func remoteActionCallbackChoice(_ callbacks: LegacyActionCallbacks, _ iosVersion: String) throws {
        let h = try SimulatorHarness(Self.app(state: .background, implements: callbacks.implements(local: false))) { $0.iosVersion = iosVersion }
        let id = try h.push(Actions.payload)
        let seen = try h.during { try h.tapAction("delete", on: id) }.notificationCallbacks.map(\.callback)
        let iOS9 = iosVersion != "8.4"
        let expected: [AppCallback] = switch callbacks {
        case .onlyCompletionHandler: [.handleRemoteAction]
        case .onlyWithResponseInfo: iOS9 ? [.handleRemoteActionWithResponseInfo] : []
        case .both: iOS9 ? [.handleRemoteActionWithResponseInfo] : [.handleRemoteAction]
        }
        #expect(seen == expected)
    }

    @Test("legacy local action: handleActionWithIdentifier:forLocalNotification:", arguments: LegacyActionCallbacks.allCases)
    func localAction(_ callbacks: LegacyActionCallbacks) throws {
        let h = try SimulatorHarness(Self.app(state: .background, implements: callbacks.implements(local: true)))
        try h.simulator.presentLocalNow(.alert("todo", .timeInterval(seconds: 1, repeats: false), category: "alert"), app: Fixture.bundleID, on: h.deviceID)
        let seen = try h.during { try h.tapAction("delete", on: "todo") }.notificationCallbacks
        let expected: AppCallback = callbacks == .onlyCompletionHandler ? .handleLocalAction : .handleLocalActionWithResponseInfo
        #expect(seen.map(\.step) == [CallbackStep(expected, .background)])
        #expect(seen.first?.arguments.actionIdentifier == "delete")
        #expect(!seen.map(\.callback).contains(.didReceiveLocalNotification))
    }

    @Test("userNotifications: didReceiveNotificationResponse with the action id", arguments: [AppState.background, .foreground])
    func userNotificationsAction(_ state: AppState) throws {
        let h = try SimulatorHarness(Self.app(.userNotifications, state: state))
        let id = try h.push(Actions.payload)
        let seen = try h.during { try h.tapAction("delete", on: id) }.notificationCallbacks
        #expect(seen.map(\.callback) == [.didReceiveResponse])
        #expect(seen.first?.arguments.actionIdentifier == "delete")
        #expect(seen.first?.arguments.trigger == "push")
    }

    @Test("Text input: the typed text reaches the callback", arguments: NotificationAPI.allCases)
    func textInput(_ api: NotificationAPI) throws {
        let h = try SimulatorHarness(Self.app(api, state: .background))
        let id = try h.push(Actions.payload)
        let seen = try h.during { try h.tapAction("reply", on: id, text: "On my way") }.notificationCallbacks
        let callback = try #require(seen.last)
        #expect(callback.arguments.typedText == "On my way")
        if api == .legacy {
            #expect(callback.callback == .handleRemoteActionWithResponseInfo)
            #expect(callback.arguments.responseInfo == .object([(CallbackKey.typedTextKey, .string("On my way"))]))
        } else {
            #expect(callback.callback == .didReceiveResponse)
            #expect(callback.arguments.actionIdentifier == "reply")
        }
    }

    @Test("authenticationRequired on a locked device: an error until the device is unlocked")
    func authenticationRequired() throws {
        let h = try SimulatorHarness(Self.app(.userNotifications, state: .background)) { $0.locked = true }
        let id = try h.push(Actions.payload)
        let seen = h.during {
            let error = #expect(throws: SimulatorError.self) { try h.tapAction("secure", on: id) }
            #expect(error?.kind == .conflict)
        }
        #expect(seen.callbacks.isEmpty)
        #expect(try h.notificationCenterIDs() == [id])

        // An action without the requirement works on the locked device.
        let other = try h.push(Actions.payload)
        #expect(throws: Never.self) { try h.tapAction("delete", on: other) }

        try h.simulator.updateDevice(h.deviceID, locked: false)
        let unlocked = try h.during { try h.tapAction("secure", on: id) }
        #expect(unlocked.notificationCallbacks.map(\.callback) == [.didReceiveResponse])
        #expect(unlocked.notificationCallbacks.first?.arguments.actionIdentifier == "secure")
    }
}
