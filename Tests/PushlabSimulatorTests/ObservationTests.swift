@testable import PushlabSimulator
import PushlabCore
import Testing

/// The observation plumbing: ordering and the JSON form the store and control API use.
@Suite("Observations")
struct ObservationTests {
    @Test("Sequence numbers increase per device, and are unique across devices")
    func sequencesIncrease() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.simulator.addDevice(SimulatedDevice(id: "ipad-2", apps: [.testApp(state: .background)]))
        for _ in 0..<5 {
            try h.alert()
            try h.tapNotification()
            try h.change(.background)
            try h.simulator.interact(.tapAppIcon(bundleID: Fixture.bundleID), on: "ipad-2")
            try h.simulator.changeApp(Fixture.bundleID, on: "ipad-2", to: .background)
            try h.advance(Fixture.minute)
        }
        for device in [h.deviceID, "ipad-2"] {
            let sequences = h.log.observations(device: device).map(\.sequence)
            #expect(sequences.count > 10)
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "\(device): \(sequences)")
        }
        let everything = h.log.observations().map(\.sequence)
        #expect(Set(everything).count == everything.count)
        #expect(everything.max() == h.simulator.lastSequence)
    }

    /// Every observation is moved and copied from the phone to the store; the large payloads
    /// (a callback's arguments, a Live Activity change, a provider response) are boxed so that
    /// the common ones stay small.
    @Test("An observation stays small, and a boxed payload reads back the same")
    func observationsStaySmall() {
        #expect(MemoryLayout<Observation>.stride <= 144, "\(MemoryLayout<Observation>.stride) bytes")
        let arguments = CallbackArguments(userInfo: .object([("aps", .object([]))]), actionIdentifier: "reply", typedText: "hi", trigger: "push")
        let callback = ObservationEvent.callback(.didReceiveResponse, appState: .background, arguments: arguments)
        var copy = callback
        #expect(copy == callback)
        copy = .callback(.didReceiveResponse, appState: .background, arguments: CallbackArguments(typedText: "other"))
        #expect(copy != callback)
        guard case .callback(_, .background, let readBack) = callback else {
            Issue.record("the case did not match")
            return
        }
        #expect(readBack.typedText == "hi" && readBack.actionIdentifier == "reply")
    }

    @Test("Observation times follow the simulated clock")
    func timesFollowClock() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.advance(42 * Fixture.minute)
        let seen = try h.during { try h.alert() }
        #expect(!seen.isEmpty)
        #expect(seen.allSatisfy { $0.time == Fixture.start + 42 * Fixture.minute })
    }

    /// At least one event of every kind, with optional fields both set and empty.
    static func samples(_ kind: ObservationKind) -> [ObservationEvent] {
        let payload = JSONValue.object([("aps", .object([("alert", .string("hi"))])), ("n", .number(3))])
        switch kind {
        case .stored: return [.stored(expiresAt: 1_769_817_600_000, replacing: nil), .stored(expiresAt: 5, replacing: "A-1")]
        case .delivered: return [.delivered(pushType: "alert", priority: 10), .delivered(pushType: "local", priority: 5)]
        case .discarded: return DiscardReason.allCases.map { .discarded($0, replacedBy: nil) } + [.discarded(.replaced, replacedBy: "B-2")]
        case .throttled: return ThrottleReason.allCases.map { .throttled($0, until: nil) } + [.throttled(.budgetExhausted, until: 1_767_229_200_000)]
        case .dropped: return DropReason.allCases.map { .dropped($0, message: nil) } + [.dropped(.forceQuit, message: "killed")]
        case .banner: return [
            .banner(title: nil, subtitle: nil, body: nil, actions: []),
            .banner(title: "T", subtitle: "S", body: "推送内容", actions: ["reply", "delete"]),
        ]
        case .sound: return [.sound("default"), .sound("chime.caf")]
        case .badge: return [.badge(0), .badge(12)]
        case .notificationCenter: return [
            .notificationCenter(.added, reason: nil, entry: DeliveredNotification(
                identifier: "A-1", isLocal: false, collapseID: "score", content: NotificationContent(payload: payload),
                deliveredAt: 1_767_225_600_000, trigger: "push"
            )),
            .notificationCenter(.added, reason: nil, entry: DeliveredNotification(
                identifier: "tea", isLocal: true, collapseID: nil,
                content: NotificationContent(title: "Tea", subtitle: "now", body: "ready", sound: "kettle.caf", badge: 2, category: "C", threadID: "t",
                                             contentAvailable: false, mutableContent: false, interruptionLevel: "time-sensitive", userInfo: .object([("k", .bool(true))])),
                deliveredAt: 5, trigger: "timeInterval"
            )),
            .notificationCenter(.removed, reason: .tapped),
            .notificationCenter(.removed, reason: .collapsed), .notificationCenter(.removed, reason: .limit),
        ]
        case .callback: return AppState.allCases.map { .callback(.didFinishLaunching, appState: $0, arguments: CallbackArguments()) } + [
            .callback(.didFinishLaunching, appState: .inactive, arguments: CallbackArguments(launchOptions: .object([(CallbackKey.remoteNotificationLaunchKey, payload)]))),
            .callback(.handleRemoteActionWithResponseInfo, appState: .background, arguments: CallbackArguments(
                userInfo: payload, actionIdentifier: "reply", typedText: "ok", responseInfo: .object([(CallbackKey.typedTextKey, .string("ok"))])
            )),
            .callback(.didRegisterForRemoteNotifications, appState: .foreground, arguments: CallbackArguments(deviceToken: String(repeating: "ab", count: 32))),
            .callback(.didReceiveResponse, appState: .inactive, arguments: CallbackArguments(userInfo: payload, actionIdentifier: CallbackKey.defaultActionIdentifier, trigger: "calendar")),
            .callback(.contentUpdates, appState: .background, arguments: CallbackArguments(activityID: "A-1", activityState: "active", contentState: payload)),
        ]
        case .liveActivity: return LiveActivityChange.Event.allCases.map { .liveActivity(LiveActivityChange($0, activityID: nil, state: nil)) }
            + LiveActivityReason.allCases.map { .liveActivity(LiveActivityChange(.ignored, activityID: "A-1", state: .active, reason: $0, message: "why")) }
            + [.liveActivity(LiveActivityChange(.updated, activityID: "A-1", state: .stale, contentState: payload))]
        case .providerRequest: return ProviderResponse.Failure.allCases.map {
            .providerRequest(ProviderResponse(event: .backgroundFetch, method: "GET", url: "https://b.example/sync", status: nil, milliseconds: 30_000, excerpt: nil, failure: $0, message: "cut"))
        } + [.providerRequest(ProviderResponse(event: .registered, method: "POST", url: "https://b.example/devices", status: 201, milliseconds: 12, excerpt: "{}", failure: nil, message: nil))]
        case .system: return SystemEvent.Kind.allCases.map { .system(SystemEvent($0)) }
            + [.system(SystemEvent(.incomingCall, message: "Incoming call from Ann", details: .object([("caller", .string("Ann")), ("presentation", .string("banner"))])))]
        case .appState: return [.appState(from: .notRunning, to: .background), .appState(from: .foreground, to: .inactive)]
        }
    }

    @Test("ObservationEvent(kind:details:) reads back what details wrote, for every kind", arguments: ObservationKind.allCases)
    func detailsRoundTrip(_ kind: ObservationKind) throws {
        let events = Self.samples(kind)
        #expect(!events.isEmpty)
        for event in events {
            #expect(event.kind == kind)
            #expect(ObservationEvent(kind: kind, details: event.details) == event, "\(event)")
        }
    }

    @Test("Every callback selector round-trips through details")
    func everyCallbackRoundTrips() {
        for callback in AppCallback.allCases {
            let event = ObservationEvent.callback(callback, appState: .background, arguments: CallbackArguments(userInfo: .object([])))
            #expect(ObservationEvent(kind: .callback, details: event.details) == event, "\(callback.rawValue)")
        }
    }

    @Test("Details that do not fit the kind are refused")
    func mismatchedDetails() {
        #expect(ObservationEvent(kind: .badge, details: .object([])) == nil)
        #expect(ObservationEvent(kind: .discarded, details: .object([("reason", .string("lost"))])) == nil)
        #expect(ObservationEvent(kind: .callback, details: ObservationEvent.sound("x").details) == nil)
    }

    @Test("Everything a busy device observed round-trips")
    func realObservationsRoundTrip() throws {
        let categories = [NotificationCategory(identifier: "alert", actions: [Actions.reply, Actions.delete], customDismissAction: true)]
        let h = try SimulatorHarness(.testApp(api: .userNotifications, state: .notRunning, categories: categories))
        try h.push(Actions.payload)
        try h.tapAction("reply", text: "yes")
        try h.push(Actions.payload)
        try h.dismiss()
        try h.silent()
        try h.silent(priority: 10)
        try h.schedule(.alert("cal", .calendar(CalendarMatch(hour: 9), repeats: true)))
        try h.advance(Fixture.day)
        try h.simulator.updateDevice(h.deviceID, online: false)
        try h.alert()
        try h.alert()
        let kinds = Set(h.all.map(\.kind))
        #expect(kinds.isSuperset(of: [.callback, .banner, .notificationCenter, .discarded, .dropped, .stored, .delivered, .appState]))
        for observation in h.all {
            #expect(ObservationEvent(kind: observation.kind, details: observation.event.details) == observation.event)
            #expect(observation.json["kind"]?.stringValue == observation.kind.rawValue)
            #expect(observation.json["sequence"]?.integerValue == observation.sequence)
        }
    }

    /// A run makes room for what can join it: a full run's for a worker's turn, a push's for one
    /// push delivered at once (an array of 576 observations a push would be 78 KB).
    @Test func aRunMakesRoomForThePushesThatCanJoinIt() {
        var single = ObservationRun(pushes: 1)
        single.makeRoom()
        #expect(single.observations.capacity >= 8 && single.observations.capacity < ObservationRun.limit)
        var turn = ObservationRun()
        turn.makeRoom()
        #expect(turn.observations.capacity >= ObservationRun.limit + 64)
        var unbounded = ObservationRun(pushes: .max)
        unbounded.makeRoom()
        #expect(unbounded.observations.capacity >= ObservationRun.limit + 64)
    }

    @Test func anObservationAfterARestartSaysSoInItsJSON() {
        var observation = Observation(sequence: 1, time: 0, deviceID: "d", bundleID: "b", notificationID: nil, event: .badge(1))
        #expect(observation.json["afterRestart"] == nil)
        observation.afterRestart = true
        #expect(observation.json["afterRestart"] == .bool(true))
    }
}

extension ObservationTests {
    /// The in-memory log keeps the newest `capacity` whatever the batches' sizes, though it drops
    /// the oldest only now and then.
    @Test func theInMemoryLogKeepsTheNewestItHasRoomFor() {
        let log = InMemoryObservationLog(capacity: 10)
        var next: Int64 = 0
        for size in [3, 7, 1, 4, 9, 2, 6] {
            log.record((0..<size).map { _ in
                next += 1
                return Observation(sequence: next, time: 0, deviceID: next.isMultiple(of: 2) ? "even" : "odd", bundleID: "b", notificationID: nil, event: .badge(Int(next)))
            })
            let kept = log.observations().map(\.sequence)
            #expect(kept == Array(max(1, next - 9)...next), "after \(next) observations")
        }
        #expect(log.observations(device: "even").map(\.sequence) == [24, 26, 28, 30, 32])
        #expect(log.observations(since: 30).map(\.sequence) == [31, 32])
    }
}
