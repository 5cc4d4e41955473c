@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 2.3: background (silent) notifications, `content-available: 1`.
@Suite("2.3 Silent pushes")
struct SilentPushTests {
    @Test("Foreground: the fetch callback is called at once", arguments: NotificationAPI.allCases)
    func foreground(_ api: NotificationAPI) throws {
        let h = try SimulatorHarness(.testApp(api: api, state: .foreground))
        var id = ""
        let seen = try h.during { id = try h.silent() }
        let callbacks = seen.notificationCallbacks
        #expect(callbacks.map(\.step) == [CallbackStep(.didReceiveRemoteNotificationFetch, .foreground)])
        #expect(callbacks.first?.time == Fixture.start)
        #expect(callbacks.first?.notificationID == id)
        #expect(callbacks.first?.arguments.userInfo == (try Fixture.json(Fixture.silentPayload)))
        #expect(seen.banners.isEmpty)
    }

    @Test("Suspended: resumed in the background, called, suspended again (never on screen)", arguments: NotificationAPI.allCases)
    func suspended(_ api: NotificationAPI) throws {
        let h = try SimulatorHarness(.testApp(api: api, state: .background))
        let seen = try h.during { try h.silent() }
        #expect(seen.notificationCallbacks.map(\.step) == [CallbackStep(.didReceiveRemoteNotificationFetch, .background)])
        #expect(!seen.callbacks.map(\.callback).contains(.willEnterForeground))
        #expect(!seen.callbacks.map(\.callback).contains(.didBecomeActive))
        #expect(try h.app().state == .background)
        #expect(seen.banners.isEmpty)
        #expect(try h.notificationCenterIDs().isEmpty)
    }

    @Test("Not running, ended by the system: launched into the background, didFinishLaunching with the remote key, then the callback",
          arguments: NotificationAPI.allCases)
    func terminatedBySystem(_ api: NotificationAPI) throws {
        let h = try SimulatorHarness(.testApp(api: api, state: .notRunning, terminatedBy: .system))
        let payload = try Fixture.json(Fixture.silentPayload)
        let seen = try h.during { try h.silent() }
        let callbacks = seen.notificationCallbacks
        #expect(callbacks.map(\.step) == [
            CallbackStep(.didFinishLaunching, .background),
            CallbackStep(.didReceiveRemoteNotificationFetch, .background),
        ])
        #expect(callbacks.first?.arguments.launchOptions == .object([(CallbackKey.remoteNotificationLaunchKey, payload)]))
        #expect(callbacks.last?.arguments.userInfo == payload)
        #expect(try h.app().state == .background)
    }

    @Test("Not running, force-quit by the user: not delivered", arguments: NotificationAPI.allCases)
    func forceQuit(_ api: NotificationAPI) throws {
        let h = try SimulatorHarness(.testApp(api: api, state: .notRunning, terminatedBy: .user))
        var id = ""
        let seen = try h.during { id = try h.silent() }
        #expect(seen.callbacks.isEmpty)
        #expect(seen.about(id).drops == [.forceQuit])
        #expect(try h.app().state == .notRunning)
    }

    @Test("Swiping the app away in the app switcher stops silent pushes; a system termination does not")
    func forceQuitByChange() throws {
        let h = try SimulatorHarness(.testApp(state: .foreground))
        try h.change(.forceQuit)
        #expect(try h.during { try h.silent() }.callbacks.isEmpty)
        try h.tapIcon()
        try h.change(.terminateBySystem)
        let seen = try h.during { try h.silent() }.notificationCallbacks.map(\.callback)
        #expect(seen == [.didFinishLaunching, .didReceiveRemoteNotificationFetch])
    }

    @Test("Without the remote-notification background mode it does not wake the app", arguments: [AppState.background, .notRunning])
    func noBackgroundMode(_ state: AppState) throws {
        let h = try SimulatorHarness(.testApp(state: state, backgroundMode: false))
        var id = ""
        let seen = try h.during { id = try h.silent() }
        #expect(seen.callbacks.isEmpty)
        #expect(seen.about(id).drops == [.noBackgroundMode])
        #expect(try h.app().state == state)
    }

    @Test("A background push sent with priority 10 is not delivered", arguments: [AppState.foreground, .background, .notRunning])
    func priorityTen(_ state: AppState) throws {
        let h = try SimulatorHarness(.testApp(state: state))
        var id = ""
        let seen = try h.during { id = try h.silent(priority: 10) }
        #expect(seen.callbacks.isEmpty)
        #expect(seen.delivered.isEmpty)
        #expect(seen.about(id).drops == [.backgroundPriority10])
    }

    static let alertAndContentAvailable = #"{"aps":{"alert":"New mail","badge":1,"content-available":1},"mailbox":"inbox"}"#

    @Test("content-available with an alert, app suspended: the UI of 2.2 and the background callback", arguments: NotificationAPI.allCases)
    func alertAndSilentInBackground(_ api: NotificationAPI) throws {
        let h = try SimulatorHarness(.testApp(api: api, state: .background))
        var id = ""
        let seen = try h.during { id = try h.push(Self.alertAndContentAvailable) }
        #expect(seen.banners.count == 1)
        #expect(seen.badges == [1])
        #expect(try h.notificationCenterIDs() == [id])
        #expect(seen.notificationCallbacks.map(\.step) == [CallbackStep(.didReceiveRemoteNotificationFetch, .background)])
    }

    @Test("content-available with an alert, userNotifications in the foreground: willPresent and the background callback")
    func alertAndSilentInForeground() throws {
        let h = try SimulatorHarness(.testApp(api: .userNotifications, state: .foreground))
        let seen = try h.during { try h.push(Self.alertAndContentAvailable) }
        #expect(Set(seen.notificationCallbacks.map(\.callback)) == [.willPresent, .didReceiveRemoteNotificationFetch])
        #expect(seen.notificationCallbacks.count == 2)
    }

    /// The reference: legacy's 2.1 callback *is* the fetch variant, so "does both" cannot mean
    /// two calls of the same method; the simulator calls it once.
    @Test("content-available with an alert, legacy in the foreground: the fetch callback once")
    func alertAndSilentLegacyForeground() throws {
        let h = try SimulatorHarness(.testApp(api: .legacy, state: .foreground))
        let seen = try h.during { try h.push(Self.alertAndContentAvailable) }
        #expect(seen.notificationCallbacks.map(\.step) == [CallbackStep(.didReceiveRemoteNotificationFetch, .foreground)])
    }

    @Test("content-available with an alert, app not running (system): banner and a launch into the background")
    func alertAndSilentNotRunning() throws {
        let h = try SimulatorHarness(.testApp(state: .notRunning))
        let seen = try h.during { try h.push(Self.alertAndContentAvailable) }
        #expect(seen.banners.count == 1)
        #expect(seen.notificationCallbacks.map(\.step) == [
            CallbackStep(.didFinishLaunching, .background), CallbackStep(.didReceiveRemoteNotificationFetch, .background),
        ])
    }
}
