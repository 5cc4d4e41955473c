@testable import PushlabCore
@testable import PushlabSimulator
import Testing

/// The push types beyond alerts, silent pushes and Live Activities (docs/SIMULATOR.md section 14).
@Suite("Push services: VoIP, location, Push to Talk, File Provider, widgets, controls, complications, MDM")
struct PushServicesTests {
    static func harness(_ services: PushServices, settings: SimulatorSettings = SimulatorSettings(), state: AppState = .notRunning, terminatedBy: Termination = .system, configure: (inout SimulatedDevice) -> Void = { _ in }) throws -> SimulatorHarness {
        var app = AppInstall.testApp(state: state, terminatedBy: terminatedBy)
        app.services = services
        return try SimulatorHarness(app, settings: settings, configure: configure)
    }

    @Test("Each service gets its own token, registered with APNs under its kind")
    func tokens() throws {
        let h = try Self.harness(PushServices(voip: VoIPService(), location: LocationPushService(), pushToTalk: PushToTalkService(),
                                              fileProvider: TokenService(), widgets: WidgetPushService(), controls: TokenService(), complication: ComplicationService()))
        let tokens = try #require(try h.app().services?.tokens)
        #expect(tokens.map(\.kind) == [.voip, .location, .pushToTalk, .fileProvider, .widgets, .controls, .complication])
        #expect(Set(tokens.map(\.token)).count == 7 && tokens.allSatisfy { $0.token.count == 64 })
        for (kind, token) in tokens { #expect(h.world.token(token)?.kind == kind) }
        let launched = try h.during { try h.change(.foreground) }
        let announced = launched.callbacks.map(\.callback)
        #expect(announced.contains(.pushRegistryDidUpdateCredentials) && announced.contains(.locationPushToken) && announced.contains(.pushToTalkEphemeralToken))
        #expect(announced.contains(.widgetPushTokenDidChange) && announced.contains(.controlPushTokensDidChange))
    }

    @Test("VoIP: a reported call shows the call screen; the app is launched even after a force-quit")
    func voipReported() throws {
        let h = try Self.harness(PushServices(voip: VoIPService()), terminatedBy: .user) { $0.locked = true }
        let seen = try h.during { try h.servicePush(#"{"aps":{},"caller":"Ann"}"#, type: .voip) }
        #expect(try h.app().state == .background)
        #expect(seen.callbacks.map(\.callback).contains(.pushRegistryDidReceiveIncomingPush))
        let call = try #require(seen.systemEvents.first)
        #expect(call.kind == .incomingCall && call.details["caller"]?.stringValue == "Ann" && call.details["presentation"]?.stringValue == "fullScreen")
    }

    @Test("VoIP: a call not reported kills the app; after the limit iOS stops delivering until a reinstall", arguments: [VoIPService.CallReporting.never, .late])
    func voipNotReported(_ reporting: VoIPService.CallReporting) throws {
        var settings = SimulatorSettings()
        settings.voipFailuresBeforeStop = 2
        let h = try Self.harness(PushServices(voip: VoIPService(reportsCall: reporting)), settings: settings)
        let first = try h.during { try h.servicePush(#"{"aps":{}}"#, type: .voip) }
        #expect(first.systemEvents.map(\.kind) == [.appTerminated])
        #expect(first.systemEvents.first?.message == "Killing app because it never posted an incoming call to the system after receiving a PushKit VoIP push.")
        #expect(try h.app().state == .notRunning)
        let second = try h.during { try h.servicePush(#"{"aps":{}}"#, type: .voip) }
        #expect(second.systemEvents.map(\.kind) == [.appTerminated, .voipDeliveryStopped])
        let third = try h.during { try h.servicePush(#"{"aps":{}}"#, type: .voip) }
        #expect(third.drops == [.voipDeliveryStopped])
        #expect(third.callbacks.isEmpty)
        try h.simulator.reinstall(Fixture.bundleID, on: Fixture.deviceID)
        let fresh = try #require(try h.app().services?.voip)
        #expect(!fresh.deliveryStopped && fresh.failedReports == 0)
        #expect(h.world.token(fresh.token)?.kind == .voip)
    }

    @Test("Location push needs the entitlement and Always authorization",
          arguments: [(true, LocationPushService.Authorization.always, nil as DropReason?), (true, .whenInUse, .locationNotAlwaysAuthorized), (false, .always, .missingEntitlement)])
    func location(_ entitlement: Bool, _ authorization: LocationPushService.Authorization, _ drop: DropReason?) throws {
        let h = try Self.harness(PushServices(location: LocationPushService(entitlement: entitlement, authorization: authorization)))
        let seen = try h.during { try h.servicePush(#"{"aps":{}}"#, type: .location) }
        #expect(seen.drops == (drop.map { [$0] } ?? []))
        #expect(seen.callbacks.map(\.callback).contains(.didReceiveLocationPushPayload) == (drop == nil))
        #expect(try h.app().state == .notRunning, "the extension runs, not the app")
    }

    @Test("Push to Talk: an active participant activates audio; leaveChannel leaves, and the next push is dropped")
    func pushToTalk() throws {
        let h = try Self.harness(PushServices(pushToTalk: PushToTalkService(result: .activeRemoteParticipant)))
        let active = try h.during { try h.servicePush(#"{"aps":{},"activeSpeaker":"Bo"}"#, type: .pushtotalk) }
        #expect(active.systemEvents.first?.kind == .pushToTalkAudio && active.systemEvents.first?.details["speaker"]?.stringValue == "Bo")
        try h.simulator.updateApp(Fixture.bundleID, on: Fixture.deviceID) { $0.services?.pushToTalk?.result = .leaveChannel }
        let leaving = try h.during { try h.servicePush(#"{"aps":{}}"#, type: .pushtotalk) }
        #expect(leaving.systemEvents.map(\.kind) == [.pushToTalkLeftChannel])
        #expect(leaving.callbacks.map(\.callback).contains(.pushToTalkDidLeaveChannel))
        let after = try h.during { try h.servicePush(#"{"aps":{}}"#, type: .pushtotalk) }
        #expect(after.drops == [.notInChannel])
    }

    @Test("File Provider signals the container's enumerator; controls reload")
    func fileProviderAndControls() throws {
        let h = try Self.harness(PushServices(fileProvider: TokenService(), controls: TokenService()))
        let signalled = try h.during { try h.servicePush(#"{"aps":{},"container-identifier":"docs","domain":"work"}"#, type: .fileprovider) }
        #expect(signalled.systemEvents.first?.kind == .enumeratorSignalled)
        #expect(signalled.systemEvents.first?.details["container"]?.stringValue == "docs" && signalled.systemEvents.first?.details["domain"]?.stringValue == "work")
        let reloaded = try h.during { try h.servicePush(#"{"aps":{"content-changed":true}}"#, type: .controls) }
        #expect(reloaded.systemEvents.map(\.kind) == [.controlsReloaded])
    }

    @Test("Widget reloads and complication pushes have daily budgets; a complication off the watch face gets nothing")
    func budgets() throws {
        var settings = SimulatorSettings()
        settings.widgetReloadsPerDay = 2
        settings.complicationPushesPerDay = 1
        let h = try Self.harness(PushServices(widgets: WidgetPushService(), complication: ComplicationService()), settings: settings)
        var widgetEvents: [Observation] = []
        for _ in 0..<3 { widgetEvents += try h.during { try h.servicePush(#"{"aps":{"content-changed":true}}"#, type: .widgets) } }
        #expect(widgetEvents.systemEvents.map(\.kind) == [.widgetsReloaded, .widgetsReloaded])
        #expect(widgetEvents.drops == [.widgetReloadBudget])
        let watch = try h.during {
            try h.servicePush(#"{"aps":{}}"#, type: .complication)
            try h.servicePush(#"{"aps":{}}"#, type: .complication)
        }
        #expect(watch.systemEvents.map(\.kind) == [.complicationUpdated] && watch.drops == [.complicationBudget])
        try h.advance(Fixture.day)
        #expect(try h.during { try h.servicePush(#"{"aps":{"content-changed":true}}"#, type: .widgets) }.systemEvents.map(\.kind) == [.widgetsReloaded])
        try h.simulator.updateApp(Fixture.bundleID, on: Fixture.deviceID) { $0.services?.complication?.onActiveWatchFace = false }
        #expect(try h.during { try h.servicePush(#"{"aps":{}}"#, type: .complication) }.drops == [.complicationNotOnWatchFace])
    }

    @Test("A push to the app's device token, or to an app without the part, goes nowhere, saying why")
    func notSetUp() throws {
        let h = try Self.harness(PushServices(voip: VoIPService()))
        let wrongToken = try h.during { try h.push(#"{"aps":{}}"#, type: .location) }
        #expect(wrongToken.drops == [.serviceNotSetUp])
        #expect(!wrongToken.contains { if case .dropped(.pushTypeNotSimulated, _) = $0.event { true } else { false } })
    }

    @Test("MDM: a push with the device's PushMagic makes it check in; another value is ignored")
    func mdm() throws {
        let h = try SimulatorHarness(.testApp()) { $0.mdm = MDMEnrollment(topic: "com.apple.mgmt.External.1", pushMagic: "magic-1") }
        let token = try #require(try h.device().mdm?.token)
        #expect(h.world.token(token)?.kind == .mdm && h.world.token(token)?.bundleID == "com.apple.mgmt.External.1")
        let checkIn = try h.during { try h.rawPush(#"{"mdm":"magic-1"}"#, token: token, type: .mdm, topic: "com.apple.mgmt.External.1") }
        #expect(checkIn.systemEvents.map(\.kind) == [.mdmCheckIn] && checkIn.first?.bundleID == "com.apple.mgmt.External.1")
        #expect(try h.during { try h.rawPush(#"{"mdm":"stale"}"#, token: token, type: .mdm, topic: "com.apple.mgmt.External.1") }.drops == [.pushMagicMismatch])
        try h.simulator.updateDevice(Fixture.deviceID, online: false)
        let offline = try h.during { try h.rawPush(#"{"mdm":"magic-1"}"#, token: token, type: .mdm, topic: "com.apple.mgmt.External.1") }
        #expect(offline.map(\.kind) == [.stored])
        let back = try h.during { try h.simulator.updateDevice(Fixture.deviceID, online: true) }
        #expect(back.map(\.kind) == [.delivered, .system])
    }
}

@Suite("Notification Service Extension")
struct ServiceExtensionBehaviorTests {
    static let payload = #"{"aps":{"alert":{"title":"New message","body":"(encrypted)"},"mutable-content":1},"id":7}"#

    static func harness(_ behavior: ServiceExtensionBehavior?, authorization: NotificationAuthorization = .authorized, settings: SimulatorSettings = SimulatorSettings()) throws -> SimulatorHarness {
        var app = AppInstall.testApp(state: .background, authorization: authorization, serviceExtension: true)
        app.serviceExtensionBehavior = behavior
        return try SimulatorHarness(app, settings: settings)
    }

    @Test("Within the time limit the extension's content is what the banner and Notification Center show")
    func modified() throws {
        let h = try Self.harness(ServiceExtensionBehavior(title: "Ann", body: "Lunch at 1?", attachment: "avatar.png", seconds: 2, communicationSender: "Ann"))
        let seen = try h.during { try h.alert(Self.payload) }
        #expect(seen.callbacks.map(\.callback) == [.serviceExtension])
        #expect(seen.banners.first?.event == .banner(title: "Ann", subtitle: nil, body: "Lunch at 1?", actions: []))
        #expect(try h.app().notificationCenter.first?.content.body == "Lunch at 1?")
        #expect(seen.systemEvents.map(\.kind) == [.serviceExtension, .communicationNotification])
        #expect(seen.systemEvents.first?.details["shown"]?.stringValue == "modified" && seen.systemEvents.first?.details["attachment"]?.stringValue == "avatar.png")
    }

    @Test("Past the time limit: serviceExtensionTimeWillExpire, then the best attempt or the original",
          arguments: [(true, "Lunch at 1?"), (false, "(encrypted)")])
    func timedOut(_ bestAttempt: Bool, _ body: String) throws {
        let h = try Self.harness(ServiceExtensionBehavior(body: "Lunch at 1?", seconds: 45, deliversBestAttempt: bestAttempt))
        let seen = try h.during { try h.alert(Self.payload) }
        #expect(seen.callbacks.map(\.callback) == [.serviceExtension, .serviceExtensionTimeWillExpire])
        #expect(seen.systemEvents.first?.details["outcome"]?.stringValue == "timedOut")
        #expect(seen.systemEvents.first?.details["shown"]?.stringValue == (bestAttempt ? "bestAttempt" : "original"))
        #expect(seen.banners.first?.event == .banner(title: "New message", subtitle: nil, body: body, actions: []))
    }

    @Test("A crash or a memory kill shows the original", arguments: [ServiceExtensionBehavior.Outcome.crashes, .exceedsMemory])
    func failed(_ outcome: ServiceExtensionBehavior.Outcome) throws {
        let h = try Self.harness(ServiceExtensionBehavior(body: "never shown", outcome: outcome))
        let seen = try h.during { try h.alert(Self.payload) }
        #expect(seen.banners.first?.event == .banner(title: "New message", subtitle: nil, body: "(encrypted)", actions: []))
        #expect(seen.systemEvents.first?.details["outcome"]?.stringValue == (outcome == .crashes ? "crashed" : "exceededMemory"))
    }

    @Test("Not run when alerts are not allowed, for silent pushes, or without mutable-content")
    func notRun() throws {
        let denied = try Self.harness(ServiceExtensionBehavior(body: "x"), authorization: .denied)
        #expect(try denied.during { try denied.alert(Self.payload) }.callbacks.isEmpty)
        let h = try Self.harness(ServiceExtensionBehavior(body: "x"))
        #expect(try h.during { try h.silent(#"{"aps":{"content-available":1,"mutable-content":1}}"#) }.systemEvents.isEmpty)
        #expect(try h.during { try h.alert(#"{"aps":{"alert":"plain"}}"#) }.systemEvents.isEmpty)
    }
}

extension SimulatorHarness {
    /// A push of `type` to the app's token of that service.
    func servicePush(_ payload: String, type: APNsPushType) throws {
        let services = try #require(try app().services)
        let token = try #require(services.tokens.first { $0.kind.pushType == type }?.token)
        try rawPush(payload, token: token, type: type, topic: Fixture.bundleID + (type.topicSuffix ?? ""))
    }

    func rawPush(_ payload: String, token: String, type: APNsPushType, topic: String) throws {
        simulator.accept(AcceptedPush(
            apnsID: APNsID(Self.ids.withLock { $0.next() }), receivedAt: now, environment: .development, deviceToken: token,
            registration: world.token(token), topic: topic, bundleID: Fixture.bundleID, pushType: type, priority: 10, expiration: nil,
            collapseID: nil, payload: try Fixture.json(payload), rawPayload: Array(payload.utf8), isDeliverable: true, connectionID: 1
        ))
    }
}

extension Array where Element == Observation {
    var systemEvents: [SystemEvent] { compactMap { if case .system(let event) = $0.event { event } else { nil } } }
}
