// `@testable` only because `AcceptedPush` (what the APNs layer hands the simulator) has no public
// initializer; the tests otherwise use the simulator's public API.
@testable import PushlabCore
@testable import PushlabSimulator
import Synchronization
import Testing

/// Names and times every test shares.
enum Fixture {
    static let deviceID = "iphone-1"
    static let bundleID = "com.example.app"
    /// 2026-01-01T00:00:00Z, a Thursday.
    static let start: EpochMilliseconds = 1_767_225_600_000
    static let second: Int64 = 1000
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    /// The app delegate's launch, registration and life-cycle callbacks: present in every
    /// "implemented callbacks" combination, since note 003 varies only the notification callbacks.
    static let delegateBasics: Set<AppCallback> = [
        .didFinishLaunching, .didRegisterForRemoteNotifications, .didFailToRegisterForRemoteNotifications,
        .willEnterForeground, .didBecomeActive, .didEnterBackground,
    ]

    /// Callbacks that carry no notification: left out when comparing a case's notification callbacks.
    static let lifeCycle: Set<AppCallback> = [
        .didRegisterForRemoteNotifications, .didFailToRegisterForRemoteNotifications,
        .willEnterForeground, .didBecomeActive, .didEnterBackground,
    ]

    /// An alert with a sound and a badge, plus a custom key, as note 003's pushes.
    static let alertPayload = #"{"aps":{"alert":{"title":"Hello","body":"World"},"sound":"default","badge":7},"orderID":42}"#
    static let silentPayload = #"{"aps":{"content-available":1},"sync":"inbox"}"#

    static func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }
}

extension AppInstall {
    /// The app under test; everything not given is the simulator's default.
    static func testApp(
        _ bundleID: String = Fixture.bundleID, api: NotificationAPI = .userNotifications, state: AppState = .background,
        implements: Set<AppCallback>? = nil, authorization: NotificationAuthorization = .authorized,
        backgroundMode: Bool = true, categories: [NotificationCategory] = [], willPresentOptions: PresentationOptions = [],
        serviceExtension: Bool = false, terminatedBy: Termination = .system
    ) -> AppInstall {
        AppInstall(
            bundleID: bundleID, deviceToken: "", api: api, implements: implements, authorization: authorization,
            remoteNotificationBackgroundMode: backgroundMode, categories: categories, willPresentOptions: willPresentOptions,
            serviceExtension: serviceExtension, state: state, terminatedBy: terminatedBy
        )
    }
}

/// A callback the log observed, with what it was called with.
struct SeenCallback: CustomStringConvertible {
    var callback: AppCallback
    var appState: AppState
    var arguments: CallbackArguments
    var time: EpochMilliseconds
    var notificationID: String?
    var bundleID: String

    var step: CallbackStep { CallbackStep(callback, appState) }
    var description: String { step.description }
}

/// A callback and the app state it ran in: what the reference's table prescribes.
struct CallbackStep: Equatable, CustomStringConvertible {
    var callback: AppCallback
    var appState: AppState
    init(_ callback: AppCallback, _ appState: AppState) {
        self.callback = callback
        self.appState = appState
    }
    var description: String { "\(callback.rawValue) [\(appState.rawValue)]" }
}

extension Array where Element == Observation {
    var callbacks: [SeenCallback] {
        compactMap { observation in
            guard case .callback(let callback, let state, let arguments) = observation.event else { return nil }
            return SeenCallback(
                callback: callback, appState: state, arguments: arguments, time: observation.time,
                notificationID: observation.notificationID, bundleID: observation.bundleID
            )
        }
    }

    /// The callbacks without registration and life-cycle ones (`didFinishLaunching` stays).
    var notificationCallbacks: [SeenCallback] { callbacks.filter { !Fixture.lifeCycle.contains($0.callback) } }

    var banners: [Observation] { filter { $0.kind == .banner } }
    var sounds: [String] { compactMap { if case .sound(let name) = $0.event { name } else { nil } } }
    var badges: [Int] { compactMap { if case .badge(let value) = $0.event { value } else { nil } } }
    var delivered: [Observation] { filter { $0.kind == .delivered } }

    func about(_ notificationID: String) -> [Observation] { filter { $0.notificationID == notificationID } }

    var drops: [DropReason] { compactMap { if case .dropped(let reason, _) = $0.event { reason } else { nil } } }
    var discards: [(reason: DiscardReason, replacedBy: String?)] {
        compactMap { if case .discarded(let reason, let by) = $0.event { (reason, by) } else { nil } }
    }
    var throttles: [(reason: ThrottleReason, until: EpochMilliseconds?)] {
        compactMap { if case .throttled(let reason, let until) = $0.event { (reason, until) } else { nil } }
    }
    var notificationCenterChanges: [(change: NotificationCenterChange, reason: RemovalReason?, id: String?)] {
        compactMap { if case .notificationCenter(let change, let reason, _) = $0.event { (change, reason, $0.notificationID) } else { nil } }
    }
}

/// One simulator with a manual clock, one device and an in-memory log.
final class SimulatorHarness {
    let clock = ManualClock(Fixture.start)
    let world = APNsWorld()
    let simulator: DeviceSimulator
    let log = InMemoryObservationLog()
    let deviceID: String
    private var pushCount = 0
    /// The last observation of the device's creation: its running apps launched then.
    let created: Int64

    init(
        apps: [AppInstall], settings: SimulatorSettings = SimulatorSettings(), deviceID: String = Fixture.deviceID,
        configure: (inout SimulatedDevice) -> Void = { _ in }
    ) throws {
        simulator = DeviceSimulator(world: world, clock: clock, settings: settings, tokenSeed: 7)
        simulator.addSink(log)
        self.deviceID = deviceID
        var device = SimulatedDevice(id: deviceID, apps: apps)
        configure(&device)
        try simulator.addDevice(device)
        created = simulator.lastSequence
    }

    convenience init(
        _ app: AppInstall = .testApp(), settings: SimulatorSettings = SimulatorSettings(), configure: (inout SimulatedDevice) -> Void = { _ in }
    ) throws {
        try self.init(apps: [app], settings: settings, configure: configure)
    }

    // MARK: State

    var now: EpochMilliseconds { clock.now() }

    func device() throws -> SimulatedDevice { try #require(simulator.device(deviceID)) }

    func app(_ bundleID: String = Fixture.bundleID) throws -> AppInstall { try #require(device().app(bundleID)) }

    func token(_ bundleID: String = Fixture.bundleID) throws -> String { try app(bundleID).deviceToken }

    func notificationCenterIDs(_ bundleID: String = Fixture.bundleID) throws -> [String] {
        try app(bundleID).notificationCenter.map(\.identifier)
    }

    // MARK: Observing

    /// The observations made while `body` ran.
    @discardableResult
    func during(_ body: () throws -> Void) rethrows -> [Observation] {
        simulator.settle()
        let mark = simulator.lastSequence
        try body()
        simulator.settle()
        return log.observations(device: deviceID, since: mark)
    }

    /// Everything observed, after delivering what is queued.
    var all: [Observation] {
        simulator.settle()
        return log.observations(device: deviceID)
    }

    /// What the sinks have seen since the device was created (its running apps' launch aside),
    /// without delivering anything.
    var recorded: [Observation] { log.observations(device: deviceID, since: created) }

    // MARK: APNs

    /// A push as APNs accepted it for the app's token; returns its apns-id. Priority defaults to
    /// 5 for background pushes and 10 otherwise; only background + 10 is undeliverable (2.3).
    @discardableResult
    func push(
        _ payload: String, to bundleID: String = Fixture.bundleID, type: APNsPushType = .alert, priority: Int? = nil,
        expiration: Int64? = nil, collapseID: String? = nil
    ) throws -> String {
        pushCount += 1
        let digits = String(pushCount)
        let apnsID = "A0000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
        let app = try app(bundleID)
        let priority = priority ?? (type == .background ? 5 : 10)
        let push = AcceptedPush(
            apnsID: APNsID(apnsID), receivedAt: now, environment: app.environment, deviceToken: app.deviceToken,
            registration: world.token(app.deviceToken), topic: bundleID, bundleID: bundleID, pushType: type,
            priority: priority, expiration: expiration, collapseID: collapseID, payload: try Fixture.json(payload),
            rawPayload: Array(payload.utf8), isDeliverable: !(type == .background && priority == 10), connectionID: 1
        )
        simulator.accept(push)
        return apnsID
    }

    @discardableResult
    func alert(_ payload: String = Fixture.alertPayload, to bundleID: String = Fixture.bundleID, collapseID: String? = nil, expiration: Int64? = nil) throws -> String {
        try push(payload, to: bundleID, expiration: expiration, collapseID: collapseID)
    }

    @discardableResult
    func silent(_ payload: String = Fixture.silentPayload, to bundleID: String = Fixture.bundleID, priority: Int = 5) throws -> String {
        try push(payload, to: bundleID, type: .background, priority: priority)
    }

    // MARK: The user and the system

    func tapNotification(_ id: String? = nil, _ bundleID: String = Fixture.bundleID) throws {
        try simulator.interact(.tapNotification(bundleID: bundleID, notificationID: id), on: deviceID)
    }

    func tapIcon(_ bundleID: String = Fixture.bundleID) throws {
        try simulator.interact(.tapAppIcon(bundleID: bundleID), on: deviceID)
    }

    func tapAction(_ actionID: String, on id: String? = nil, text: String? = nil, _ bundleID: String = Fixture.bundleID) throws {
        try simulator.interact(.tapAction(bundleID: bundleID, notificationID: id, actionID: actionID, text: text), on: deviceID)
    }

    func dismiss(_ id: String? = nil, _ bundleID: String = Fixture.bundleID) throws {
        try simulator.interact(.dismiss(bundleID: bundleID, notificationID: id), on: deviceID)
    }

    func clearAll(_ bundleID: String? = Fixture.bundleID) throws {
        try simulator.interact(.clearAll(bundleID: bundleID), on: deviceID)
    }

    func change(_ to: AppStateChange, _ bundleID: String = Fixture.bundleID) throws {
        try simulator.changeApp(bundleID, on: deviceID, to: to)
    }

    func advance(_ milliseconds: Int64) throws { try simulator.advanceClock(milliseconds: milliseconds) }

    // MARK: Local notifications

    @discardableResult
    func schedule(_ notification: LocalNotification, _ bundleID: String = Fixture.bundleID) throws -> DeviceSimulator.ScheduleResult {
        try simulator.scheduleLocal(notification, app: bundleID, on: deviceID)
    }

    func pending(_ bundleID: String = Fixture.bundleID) throws -> [LocalNotification] {
        try simulator.pendingLocal(app: bundleID, on: deviceID)
    }
}

extension LocalNotification {
    /// A local alert as note 003 schedules them: body, badge, sound and user info.
    static func alert(_ identifier: String, _ trigger: LocalTrigger, category: String? = nil) -> LocalNotification {
        LocalNotification(
            identifier: identifier,
            content: NotificationContent(
                title: "Reminder", body: "Time to go home", sound: "default", badge: 3, category: category,
                userInfo: .object([("pageKey", .string("friend"))])
            ),
            trigger: trigger
        )
    }
}
