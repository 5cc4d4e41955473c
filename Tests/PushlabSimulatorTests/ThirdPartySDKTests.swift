@testable import PushlabCore
@testable import PushlabSimulator
import Synchronization
import Testing

/// JPush's and GeTui's SDKs in an app (docs/SIMULATOR.md section 16): registration at launch,
/// the service's connection following the app on screen, messages over it, and the SDK as the
/// notification center's delegate. A fake service stands in for the real ones.
@Suite("Third-party push SDKs")
struct ThirdPartySDKTests {
    /// Registers every new SDK with an id of its own, and keeps what it heard.
    final class FakeService: ThirdPartySDKConnector {
        let events = Mutex<[ThirdPartySDKEvent]>([])
        let simulator: DeviceSimulator
        let refuse: Bool

        init(_ simulator: DeviceSimulator, refuse: Bool = false) {
            self.simulator = simulator
            self.refuse = refuse
        }

        func handle(_ heard: [ThirdPartySDKEvent]) {
            events.withLock { $0 += heard }
            for event in heard where event.kind == .launched && event.registrationID == nil {
                try? simulator.registerSDK(
                    deviceID: event.deviceID, bundleID: event.bundleID, registrationID: refuse ? nil : event.requestedID ?? "rid-1",
                    errorCode: refuse ? 1005 : nil
                )
            }
        }

        var kinds: [ThirdPartySDKEvent.Kind] { events.withLock { $0.map(\.kind) } }
    }

    static func harness(_ service: ThirdPartySDK.Service, state: AppState = .notRunning, api: NotificationAPI = .userNotifications, refuse: Bool = false)
        throws -> (SimulatorHarness, FakeService) {
        var app = AppInstall.testApp(api: api, state: state)
        app.sdk = ThirdPartySDK(service: service, appKey: "app-key")
        let h = try SimulatorHarness(app)
        let fake = FakeService(h.simulator, refuse: refuse)
        h.simulator.setThirdPartySDKConnector(fake)
        return (h, fake)
    }

    static func message(offline: Bool) -> ThirdPartySDKMessage {
        ThirdPartySDKMessage(messageID: "m1", userInfo: .object([("content", .string("hi"))]), offline: offline)
    }

    @Test("A launch into the background registers; the connection comes up only on screen")
    func registrationAtLaunchConnectionOnScreen() throws {
        let (h, fake) = try Self.harness(.jpush)
        try h.change(.background)
        #expect(fake.kinds == [.launched])
        let registered = h.all.callbacks.filter { $0.callback == .jpushRegistrationID }
        #expect(registered.count == 1)
        #expect(registered.first?.arguments.sdk?["registrationID"] == .string("rid-1"))
        #expect(registered.first?.arguments.sdk?["resCode"] == .number(0))
        #expect(try h.app().sdk?.registrationID == "rid-1")
        #expect(try h.app().sdk?.connected == false)
        #expect(try !h.simulator.deliverSDKMessage(deviceID: h.deviceID, bundleID: Fixture.bundleID, Self.message(offline: false)))

        try h.change(.foreground)
        #expect(fake.kinds == [.launched, .connected])
        #expect(fake.events.withLock { $0.last?.registrationID } == "rid-1")
        var delivered = false
        let seen = try h.during { delivered = try h.simulator.deliverSDKMessage(deviceID: h.deviceID, bundleID: Fixture.bundleID, Self.message(offline: false)) }
        #expect(delivered)
        #expect(seen.callbacks.map(\.step) == [CallbackStep(.jpushDidReceiveMessage, .foreground)])
        #expect(seen.callbacks.first?.arguments.sdk?["offLine"] == .bool(false))

        try h.change(.background)
        #expect(fake.kinds == [.launched, .connected, .disconnected])
        #expect(try h.app().sdk?.connected == false)
    }

    @Test("The connection drops with the network and comes back with it")
    func offlineDropsTheConnection() throws {
        let (h, fake) = try Self.harness(.getui, state: .notRunning)
        try h.change(.foreground)
        _ = try h.simulator.updateDevice(h.deviceID, online: false)
        #expect(fake.kinds == [.launched, .connected, .disconnected])
        _ = try h.simulator.updateDevice(h.deviceID, online: true)
        #expect(fake.kinds == [.launched, .connected, .disconnected, .connected])
    }

    @Test("A refused registration is JPush's completion handler with the error code, and no id")
    func refusedRegistration() throws {
        let (h, _) = try Self.harness(.jpush, refuse: true)
        try h.change(.background)
        let registered = try #require(h.all.callbacks.first { $0.callback == .jpushRegistrationID })
        #expect(registered.arguments.sdk?["resCode"] == .number(1005))
        #expect(registered.arguments.sdk?["registrationID"] == .null)
        #expect(try h.app().sdk?.registrationID == nil)
    }

    @Test("GeTui's transmission carries fromGetui, offLine, the task and the message ids")
    func getuiTransmission() throws {
        let (h, _) = try Self.harness(.getui)
        try h.change(.foreground)
        #expect(h.all.callbacks.contains { $0.callback == .getuiDidRegisterClient && $0.arguments.sdk?["clientId"] == .string("rid-1") })
        let message = ThirdPartySDKMessage(messageID: "m9", userInfo: .object([("payload", .string("data"))]), taskID: "RASS_0101_x", offline: true)
        let seen = try h.during { _ = try h.simulator.deliverSDKMessage(deviceID: h.deviceID, bundleID: Fixture.bundleID, message) }
        let callback = try #require(seen.callbacks.first)
        #expect(callback.callback == .getuiDidReceiveSilence)
        #expect(callback.arguments.sdk == .object([
            ("fromGetui", .bool(true)), ("offLine", .bool(true)), ("appId", .string("app-key")), ("taskId", .string("RASS_0101_x")), ("msgId", .string("m9")),
        ]))
        #expect(callback.arguments.userInfo == .object([("payload", .string("data"))]))
    }

    @Test("The SDK is the notification center's delegate: its methods replace willPresent and didReceiveResponse")
    func sdkReplacesTheNotificationCenterDelegate() throws {
        let (h, _) = try Self.harness(.jpush, state: .notRunning)
        try h.change(.foreground)
        let onScreen = try h.during { _ = try h.alert() }
        #expect(onScreen.callbacks.map(\.callback).contains(.jpushWillPresent))
        #expect(!onScreen.callbacks.map(\.callback).contains(.willPresent))
        try h.change(.background)
        let id = try h.alert()
        let tapped = try h.during { try h.tapNotification(id) }
        #expect(tapped.callbacks.map(\.callback).contains(.jpushDidReceiveResponse))
        #expect(!tapped.callbacks.map(\.callback).contains(.didReceiveResponse))
    }

    @Test("GeTui: a silent push is its silence callback with fromGetui false; the legacy API keeps its own callbacks")
    func getuiSilentPushAndLegacyAPI() throws {
        let (h, _) = try Self.harness(.getui, state: .background)
        let silent = try h.during { _ = try h.silent() }
        let callback = try #require(silent.callbacks.first { $0.callback == .getuiDidReceiveSilence })
        #expect(callback.arguments.sdk?["fromGetui"] == .bool(false))

        let (legacy, _) = try Self.harness(.getui, state: .background, api: .legacy)
        let id = try legacy.alert()
        let tapped = try legacy.during { try legacy.tapNotification(id) }
        #expect(tapped.callbacks.map(\.callback).contains(.didReceiveRemoteNotificationFetch))
        #expect(!tapped.callbacks.map(\.callback).contains(.getuiDidReceiveSilence))
    }

    @Test("A scenario's app reads jpush and getui, one of them, with an optional id")
    func specs() throws {
        var spec = AppSpec(bundleId: Fixture.bundleID)
        spec.jpush = ThirdPartySDKSpec(appKey: "k", registrationId: "abc123")
        let app = try spec.install(place: "app")
        #expect(app.sdk == ThirdPartySDK(service: .jpush, appKey: "k", requestedID: "abc123"))
        spec.getui = ThirdPartySDKSpec(appId: "g")
        #expect(throws: SimulatorError.self) { try spec.install(place: "app") }
        spec.jpush = nil
        spec.getui = ThirdPartySDKSpec(appKey: "wrong-key-name")
        #expect(throws: SimulatorError.self) { try spec.install(place: "app") }
        spec.getui = ThirdPartySDKSpec(appId: "g", clientId: "not/an/id")
        #expect(throws: SimulatorError.self) { try spec.install(place: "app") }
    }

    @Test("The SDK and its id survive a reinstall; the connection drops")
    func reinstallKeepsTheID() throws {
        let (h, fake) = try Self.harness(.jpush)
        try h.change(.foreground)
        _ = try h.simulator.reinstall(Fixture.bundleID, on: h.deviceID)
        #expect(try h.app().sdk?.registrationID == "rid-1")
        #expect(fake.kinds.last == .disconnected)
    }

    @Test("The app hands its SDK's id to its backend: the sdkRegistered request, and registrationId in every later one")
    func registrationReachesTheBackend() throws {
        final class Capture: ProviderRequestSender {
            let sent = Mutex<[ProviderRequest]>([])
            func send(_ requests: [ProviderRequest]) { sent.withLock { $0 += requests } }
        }
        var app = AppInstall.testApp(state: .notRunning)
        app.sdk = ThirdPartySDK(service: .getui, appKey: "app-key")
        app.provider = ProviderBackend(baseURL: "https://backend.example", requests: [
            ProviderRequestTemplate(event: .sdkRegistered, path: "/push-ids/{pushService}", body: .object([("id", .string("{registrationId}"))])),
            ProviderRequestTemplate(event: .launch, path: "/launch?id={registrationId}"),
        ])
        let h = try SimulatorHarness(app)
        let capture = Capture()
        h.simulator.setProviderRequestSender(capture)
        h.simulator.setThirdPartySDKConnector(FakeService(h.simulator))
        try h.change(.background)
        try h.change(.terminateBySystem)
        try h.change(.background)
        let sent = capture.sent.withLock { $0 }
        #expect(sent.map(\.event) == [.launch, .sdkRegistered, .launch])
        #expect(sent[1].url == "https://backend.example/push-ids/getui")
        #expect(sent[1].body.map { String(decoding: $0, as: UTF8.self) } == #"{"id":"rid-1"}"#)
        #expect(sent[0].url == "https://backend.example/launch?id=" && sent[2].url == "https://backend.example/launch?id=rid-1")
    }
}
