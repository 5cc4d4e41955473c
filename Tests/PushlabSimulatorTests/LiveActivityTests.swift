@testable import PushlabCore
@testable import PushlabSimulator
import Foundation
import Synchronization
import Testing

/// Live Activities on the phone: push-to-start, updates, stale dates, ends, dismissal, the
/// budget and broadcast channels (docs/SIMULATOR.md, "Live Activities").
@Suite("Live Activities")
struct LiveActivityTests {
    static let start = #"{"aps":{"timestamp":1767225600,"event":"start","content-state":{"eta":10},"attributes-type":"DeliveryAttributes","attributes":{"order":"42"},"alert":{"title":"Order 42","body":"On its way","sound":"chime.aiff"},"input-push-token":1}}"#

    static func update(_ timestamp: Int, eta: Int = 5, extra: String = "") -> String {
        #"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"eta":\#(eta)}\#(extra)}}"#
    }

    static func harness(ios: String = "18.0", support: LiveActivitySupport = LiveActivitySupport(), settings: SimulatorSettings = SimulatorSettings(), state: AppState = .background, terminatedBy: Termination = .system) throws -> SimulatorHarness {
        var app = AppInstall.testApp(state: state, terminatedBy: terminatedBy)
        app.liveActivities = support
        return try SimulatorHarness(app, settings: settings) { $0.iosVersion = ios }
    }

    @Test("An iOS 17.2+ app with Live Activities gets a push-to-start token APNs knows; older iOS gets none")
    func pushToStartToken() throws {
        let h = try Self.harness(state: .notRunning)
        let token = try #require(try h.app().liveActivities?.pushToStartToken)
        #expect(h.world.token(token)?.kind == .pushToStart)
        #expect(h.world.token(token)?.deviceID == Fixture.deviceID)
        let launched = try h.during { try h.change(.foreground) }
        #expect(launched.callbacks.contains { $0.callback == .pushToStartTokenUpdates && $0.arguments.deviceToken == token })
        let old = try Self.harness(ios: "17.1")
        #expect(try old.app().liveActivities?.pushToStartToken == nil)
    }

    @Test("Push-to-start creates the activity, wakes the app, issues its token and shows the alert")
    func startByPush() throws {
        let h = try Self.harness(state: .notRunning)
        let seen = try h.during { try h.activityPush(Self.start, to: h.pushToStartToken()) }
        let activity = try #require(try h.activities().first)
        #expect(activity.state == .active)
        #expect(activity.contentState == (try Fixture.json(#"{"eta":10}"#)))
        #expect(activity.origin == .push)
        let token = try #require(activity.pushToken)
        #expect(h.world.token(token)?.kind == .liveActivity)
        #expect(seen.changes.map(\.event) == [.started])
        #expect(try h.app().state == .background, "ActivityKit gives the app background time")
        #expect(seen.callbacks.map(\.callback).contains(.activityUpdates))
        #expect(seen.callbacks.contains { $0.callback == .pushTokenUpdates && $0.arguments.deviceToken == token })
        #expect(seen.banners.first?.event == .banner(title: "Order 42", subtitle: nil, body: "On its way", actions: []))
        #expect(seen.sounds == ["chime.aiff"])
        #expect(try h.notificationCenterIDs().isEmpty, "a Live Activity alert is not a notification")
    }

    @Test("Why a start is ignored", arguments: [
        ("disabled", LiveActivityReason.disabledByUser),
        ("forceQuit", .appForceQuit),
        ("update", .notStartEvent),
        ("noAttributes", .missingStartFields),
        ("unknownType", .unknownAttributesType),
    ])
    func ignoredStarts(_ situation: String, _ reason: LiveActivityReason) throws {
        var support = LiveActivitySupport(attributesTypes: ["DeliveryAttributes"])
        if situation == "disabled" { support.enabled = false }
        var payload = Self.start
        if situation == "update" { payload = Self.update(1_767_225_600) }
        if situation == "noAttributes" { payload = payload.replacingOccurrences(of: #","attributes":{"order":"42"}"#, with: "") }
        if situation == "unknownType" { payload = payload.replacingOccurrences(of: "DeliveryAttributes", with: "PizzaAttributes") }
        let h = try Self.harness(
            support: support, state: situation == "forceQuit" ? .notRunning : .background,
            terminatedBy: situation == "forceQuit" ? .user : .system
        )
        let seen = try h.during { try h.activityPush(payload, to: h.pushToStartToken()) }
        #expect(seen.changes.map(\.event) == [.ignored])
        #expect(seen.changes.first?.reason == reason)
        #expect(try h.activities().isEmpty)
    }

    @Test("Updates replace the content state; an older timestamp is ignored")
    func updatesAndTimestamps() throws {
        let h = try Self.harness()
        let token = try h.startedActivityToken()
        let applied = try h.during { try h.activityPush(Self.update(1_767_225_700, eta: 5), to: token) }
        #expect(applied.changes.map(\.event) == [.updated])
        #expect(applied.callbacks.map(\.callback) == [.contentUpdates])
        #expect(try h.activities().first?.contentState == (try Fixture.json(#"{"eta":5}"#)))
        let stale = try h.during { try h.activityPush(Self.update(1_767_225_650, eta: 99), to: token) }
        #expect(stale.changes.map(\.event) == [.ignored])
        #expect(stale.changes.first?.reason == .olderTimestamp)
        #expect(try h.activities().first?.contentState == (try Fixture.json(#"{"eta":5}"#)))
        let wrong = try h.during { try h.activityPush(Self.start, to: token) }
        #expect(wrong.changes.first?.reason == .startToActivityToken)
    }

    @Test("stale-date makes the activity stale on the clock; an update makes it active again")
    func staleDate() throws {
        let h = try Self.harness()
        let token = try h.startedActivityToken()
        let staleAt = (Fixture.start + 10 * Fixture.minute) / 1000
        try h.activityPush(Self.update(1_767_225_700, extra: #","stale-date":\#(staleAt)"#), to: token)
        let seen = try h.during { try h.advance(10 * Fixture.minute) }
        #expect(seen.changes.map(\.event) == [.stale])
        #expect(try h.activities().first?.state == .stale)
        #expect(seen.callbacks.first?.arguments.activityState == "stale")
        let back = try h.during { try h.activityPush(Self.update(1_767_226_900), to: token) }
        #expect(back.changes.first?.state == .active)
        #expect(back.callbacks.map(\.callback) == [.activityStateUpdates, .contentUpdates])
    }

    @Test("end without dismissal-date stays four hours on the Lock Screen, then its token answers 410")
    func endStaysFourHours() throws {
        let h = try Self.harness()
        let token = try h.startedActivityToken()
        let ended = try h.during { try h.activityPush(#"{"aps":{"timestamp":1767225700,"event":"end","content-state":{"eta":0}}}"#, to: token) }
        #expect(ended.changes.map(\.event) == [.ended])
        #expect(try h.activities().first?.state == .ended)
        let late = try h.during { try h.activityPush(Self.update(1_767_226_000), to: token) }
        #expect(late.changes.first?.reason == .activityEnded)
        try h.advance(4 * Fixture.hour - 1)
        #expect(try h.activities().count == 1)
        let gone = try h.during { try h.advance(1) }
        #expect(gone.changes.map(\.event) == [.dismissed])
        #expect(gone.changes.first?.reason == .lockScreenLimit)
        #expect(try h.activities().isEmpty)
        #expect(h.world.token(token)?.state == .unregistered(since: h.now))
    }

    @Test("A past dismissal-date removes it at once; a later one is capped at four hours")
    func dismissalDates() throws {
        let h = try Self.harness()
        let token = try h.startedActivityToken()
        let seen = try h.during { try h.activityPush(#"{"aps":{"timestamp":1767225700,"event":"end","dismissal-date":1000}}"#, to: token) }
        #expect(seen.changes.map(\.event) == [.ended, .dismissed])
        #expect(seen.changes.last?.reason == .dismissalDate)
        let other = try h.startedActivityToken()
        let far = (Fixture.start + 10 * Fixture.hour) / 1000
        try h.activityPush(#"{"aps":{"timestamp":1767225800,"event":"end","dismissal-date":\#(far)}}"#, to: other)
        let capped = try h.during { try h.advance(4 * Fixture.hour) }
        #expect(capped.changes.map(\.event) == [.dismissed])
        #expect(capped.changes.first?.reason == .lockScreenLimit)
    }

    @Test("After eight hours the system ends it; four hours later it leaves the Lock Screen")
    func maximumDuration() throws {
        let h = try Self.harness()
        _ = try h.startedActivityToken()
        let ended = try h.during { try h.advance(8 * Fixture.hour) }
        #expect(ended.changes.map(\.event) == [.ended])
        #expect(ended.changes.first?.reason == .maximumDuration)
        let dismissed = try h.during { try h.advance(4 * Fixture.hour) }
        #expect(dismissed.changes.map(\.event) == [.dismissed])
    }

    @Test("Priority-10 updates past the hourly budget are dropped; priority 5 costs nothing; frequent updates raise it")
    func budget() throws {
        var settings = SimulatorSettings()
        settings.liveActivityUpdatesPerHour = 3
        settings.liveActivityFrequentUpdatesPerHour = 6
        let h = try Self.harness(settings: settings)
        let token = try h.startedActivityToken()
        var seen: [Observation] = []
        for index in 1...4 { seen += try h.during { try h.activityPush(Self.update(1_767_225_600 + index), to: token) } }
        #expect(seen.changes.map(\.event) == [.updated, .updated, .updated, .throttled])
        #expect(seen.changes.last?.reason == .budgetExhausted)
        let low = try h.during { try h.activityPush(Self.update(1_767_225_700), to: token, priority: 5) }
        #expect(low.changes.map(\.event) == [.updated])
        try h.advance(Fixture.hour)
        let next = try h.during { try h.activityPush(Self.update(1_767_225_800), to: token) }
        #expect(next.changes.map(\.event) == [.updated], "the window moved on")

        var frequent = LiveActivitySupport(frequentUpdates: true)
        let f = try Self.harness(support: frequent, settings: settings)
        let fToken = try f.startedActivityToken()
        var fSeen: [Observation] = []
        for index in 1...7 { fSeen += try f.during { try f.activityPush(Self.update(1_767_225_600 + index), to: fToken) } }
        #expect(fSeen.changes.filter { $0.event == .updated }.count == 6)
        frequent.frequentUpdatesEnabled = false
        #expect(!frequent.hasFrequentUpdates, "the user's switch turns the larger budget off")
    }

    @Test("No more than the per-app limit of live activities")
    func activityLimit() throws {
        var settings = SimulatorSettings()
        settings.liveActivitiesPerApp = 2
        let h = try Self.harness(settings: settings)
        _ = try h.startedActivityToken()
        _ = try h.startedActivityToken()
        let third = try h.during { try h.activityPush(Self.start, to: h.pushToStartToken()) }
        #expect(third.changes.first?.reason == .tooManyActivities)
    }

    @Test("The app starts, updates and ends its own activity; only in the foreground")
    func appSide() throws {
        let h = try Self.harness(state: .background)
        var request = LiveActivity(id: "", attributesType: "DeliveryAttributes", attributes: .object([]), contentState: try Fixture.json(#"{"eta":3}"#), origin: .app, startedAt: 0)
        request.pushToken = ""
        #expect(throws: SimulatorError.self) { try h.simulator.startActivity(request, app: Fixture.bundleID, on: Fixture.deviceID) }
        try h.change(.foreground)
        let started = try h.simulator.startActivity(request, app: Fixture.bundleID, on: Fixture.deviceID)
        let token = try #require(started.pushToken)
        #expect(h.world.token(token)?.kind == .liveActivity)
        try h.simulator.updateActivity(started.id, app: Fixture.bundleID, on: Fixture.deviceID, contentState: try Fixture.json(#"{"eta":1}"#))
        let ended = try h.during { try h.simulator.endActivity(started.id, app: Fixture.bundleID, on: Fixture.deviceID, dismissal: h.now) }
        #expect(ended.changes.map(\.event) == [.ended, .dismissed])
        #expect(ended.changes.first?.reason == .endedByApp)
    }

    @Test("A broadcast updates subscribed activities; offline, a storing channel keeps the newest and a no-storage channel nothing")
    func broadcast() throws {
        let h = try Self.harness()
        let stored = BroadcastChannel(id: "c3RvcmVk", bundleID: Fixture.bundleID, environment: .development, storagePolicy: .mostRecent, createdAt: 0)
        let unstored = BroadcastChannel(id: "bm9uZQ==", bundleID: Fixture.bundleID, environment: .development, storagePolicy: .noStorage, createdAt: 0)
        for channel in [stored, unstored] {
            try h.activityPush(Self.start.replacingOccurrences(of: #""input-push-token":1"#, with: #""input-push-channel":"\#(channel.id)""#), to: h.pushToStartToken())
        }
        let online = try h.during { h.broadcast(Self.update(1_767_225_700, eta: 4), on: stored) }
        #expect(online.changes.map(\.event) == [.updated])
        try h.simulator.updateDevice(Fixture.deviceID, online: false)
        let offline = try h.during {
            h.broadcast(Self.update(1_767_225_800, eta: 3), on: stored)
            h.broadcast(Self.update(1_767_225_900, eta: 2), on: stored)
            h.broadcast(Self.update(1_767_225_900, eta: 2), on: unstored, expiration: 0)
        }
        #expect(offline.filter { $0.kind == .stored }.count == 2)
        #expect(offline.discards.map(\.reason) == [.replaced, .deliverOnce])
        let back = try h.during { try h.simulator.updateDevice(Fixture.deviceID, online: true) }
        #expect(back.changes.map(\.event) == [.updated])
        let activity = try #require(try h.activities().first { $0.channelID == stored.id })
        #expect(activity.contentState == (try Fixture.json(#"{"eta":2}"#)))
    }

    @Test("A broadcast end with a past dismissal date removes every subscribed activity, in turn")
    func broadcastEndsSeveral() throws {
        let h = try Self.harness()
        let channel = BroadcastChannel(id: "c2NvcmVz", bundleID: Fixture.bundleID, environment: .development, storagePolicy: .noStorage, createdAt: 0)
        for _ in 0..<2 {
            try h.activityPush(Self.start.replacingOccurrences(of: #""input-push-token":1"#, with: #""input-push-channel":"\#(channel.id)""#), to: h.pushToStartToken())
        }
        _ = try h.startedActivityToken()
        let ended = try h.during { h.broadcast(#"{"aps":{"timestamp":1767225700,"event":"end","dismissal-date":1}}"#, on: channel, expiration: 0) }
        #expect(ended.changes.map(\.event) == [.ended, .dismissed, .ended, .dismissed])
        #expect(try h.activities().count == 1 && h.activities().first?.channelID == nil, "the activity on no channel stays")
    }

    @Test("ActivityKit's sequences are seen only by a running app")
    func callbacksOnlyWhileRunning() throws {
        let h = try Self.harness()
        let token = try h.startedActivityToken()
        try h.change(.forceQuit)
        let seen = try h.during { try h.activityPush(Self.update(1_767_225_700), to: token) }
        #expect(seen.changes.map(\.event) == [.updated])
        #expect(seen.callbacks.isEmpty)
    }

    @Test("Activities listed on a device added later still go stale and end on the clock; the 410 carries the dismissal's time")
    func listedActivitiesRunOnTheClock() throws {
        var support = LiveActivitySupport()
        support.activities = [try ActivitySpec.listed(stale: Double(Fixture.start / 1000 + 600)).activity(place: "a")]
        let h = try Self.harness(support: support)
        let token = try #require(try h.activities().first?.pushToken)
        let seen = try h.during { try h.advance(13 * Fixture.hour) }
        #expect(seen.changes.map(\.event) == [.stale, .ended, .dismissed])
        #expect(h.world.token(token)?.state == .unregistered(since: Fixture.start + 12 * Fixture.hour))
    }

    @Test("An app without NSSupportsLiveActivities ignores Live Activity pushes")
    func notSupported() throws {
        let h = try SimulatorHarness()
        let seen = try h.during { try h.activityPush(Self.start, to: h.token()) }
        #expect(seen.changes.first?.reason == .notSupported)
    }

    @Test("Observations round-trip through their JSON details")
    func observationJSON() throws {
        let h = try Self.harness()
        _ = try h.startedActivityToken()
        for observation in h.all {
            #expect(ObservationEvent(kind: observation.kind, details: observation.event.details) == observation.event)
        }
    }
}

extension SimulatorHarness {
    static let ids = Mutex(APNsIDGenerator(seed: 11))

    func pushToStartToken() throws -> String { try #require(try app().liveActivities?.pushToStartToken) }

    func activities() throws -> [LiveActivity] { try app().liveActivities?.activities ?? [] }

    /// Starts an activity by push and returns its token.
    func startedActivityToken() throws -> String {
        let before = Set(try activities().map(\.id))
        try activityPush(LiveActivityTests.start, to: pushToStartToken())
        return try #require(try activities().first { !before.contains($0.id) }?.pushToken)
    }

    func activityPush(_ payload: String, to token: String, priority: Int = 10) throws {
        let push = AcceptedPush(
            apnsID: APNsID(Self.ids.withLock { $0.next() }), receivedAt: now, environment: .development, deviceToken: token,
            registration: world.token(token), topic: Fixture.bundleID + ".push-type.liveactivity", bundleID: Fixture.bundleID,
            pushType: .liveactivity, priority: priority, expiration: nil, collapseID: nil, payload: try Fixture.json(payload),
            rawPayload: Array(payload.utf8), isDeliverable: true, connectionID: 1
        )
        simulator.accept(push)
    }

    func broadcast(_ payload: String, on channel: BroadcastChannel, expiration: Int64? = nil) {
        simulator.accept(broadcast: AcceptedBroadcast(
            requestID: APNsID(Self.ids.withLock { $0.next() }), receivedAt: now, environment: .development, bundleID: channel.bundleID,
            channel: channel, priority: 10, expiration: expiration, payload: try? Fixture.json(payload),
            payloadBytes: PayloadBytes(Array(payload.utf8)), connectionID: 1
        ))
    }
}

extension Array where Element == Observation {
    var changes: [LiveActivityChange] { compactMap { if case .liveActivity(let change) = $0.event { change } else { nil } } }
}

extension ActivitySpec {
    /// A running activity with its own token, as a scenario lists one.
    static func listed(stale: Double?) throws -> ActivitySpec {
        try JSONDecoder().decode(ActivitySpec.self, from: Data(#"{"attributesType":"Score","pushType":"token"\#(stale.map { ",\"staleDate\":\($0)" } ?? "")}"#.utf8))
    }
}

@Suite("Adding many devices")
struct AddDevicesTests {
    @Test("All or nothing: a bad device takes back the ones before it, and no token is registered")
    func allOrNothing() throws {
        let world = APNsWorld()
        let simulator = DeviceSimulator(world: world, clock: ManualClock(Fixture.start), tokenSeed: 3)
        var live = AppInstall.testApp()
        live.liveActivities = LiveActivitySupport(pushToStartToken: String(repeating: "ab", count: 32))
        let good = SimulatedDevice(id: "good", iosVersion: "18.0", apps: [.testApp()])
        let tooOld = SimulatedDevice(id: "old", iosVersion: "16.4", apps: [live])
        #expect(throws: SimulatorError.self) { try simulator.addDevices([good, tooOld]) }
        #expect(simulator.deviceCount == 0 && world.tokenCount == 0)
        let twice = SimulatedDevice(id: "good", apps: [.testApp()])
        #expect(throws: SimulatorError.self) { try simulator.addDevices([good, twice]) }
        #expect(simulator.deviceCount == 0 && world.tokenCount == 0)
        try simulator.addDevices([good, SimulatedDevice(id: "new", iosVersion: "18.0", apps: [live])])
        #expect(simulator.deviceCount == 2 && world.token(String(repeating: "ab", count: 32))?.kind == .pushToStart)
    }
}
