import PushlabCore

/// One device being changed under the simulator's lock: the rules run here, on plain values,
/// and every observation they make is collected in order.
struct DeviceSession {
    var device: SimulatedDevice
    let settings: SimulatorSettings
    /// The simulated time of what happens now (a due event's own time when catching up).
    var now: EpochMilliseconds
    /// What the session observed, after whatever the array held when it was handed in
    /// (`observingInto`): a run of queued pushes appends every push's observations to one array.
    private(set) var observations: [Observation]
    /// Where this session's own observations start in `observations`.
    private let firstObservation: Int
    /// Tokens the session issued or retired, for the simulator to tell APNs's world afterwards.
    var tokenChanges: [TokenChange] = []
    /// Requests apps make to their backends, for the simulator to hand to its sender afterwards.
    var providerRequests: [ProviderRequest] = []
    /// The SDKs' connections that came up or went down, for the simulator's connector afterwards.
    var sdkEvents: [ThirdPartySDKEvent] = []
    /// Numbers `count` observations: returns the first of `count` new sequence numbers.
    private let reserveSequences: (Int) -> Int64
    let newToken: () -> String

    enum TokenChange {
        case register(DeviceTokenRecord)
        /// `Unregistered` from this time on.
        case unregister(String, at: EpochMilliseconds)
    }

    /// `observingInto`: an array the session's observations are appended to, moved in and
    /// handed back by `takeObservations` (a push's own array cost an allocation a push, and one
    /// more free for the store).
    init(
        device: SimulatedDevice, settings: SimulatorSettings, now: EpochMilliseconds, observingInto observations: consuming [Observation] = [],
        reserveSequences: @escaping (Int) -> Int64, newToken: @escaping () -> String = { var ids = APNsIDGenerator(); return ids.hex(bytes: 32) }
    ) {
        self.device = device
        self.settings = settings
        self.now = now
        self.reserveSequences = reserveSequences
        self.newToken = newToken
        self.observations = consume observations
        firstObservation = self.observations.count
        // A push is four or five observations: room for them without growing the array twice.
        if self.observations.capacity - firstObservation < 8 { self.observations.reserveCapacity(firstObservation + 8) }
    }

    /// The array handed in, with the observations made since after it, numbered; handed over
    /// without a copy, the session keeps none. Numbered here, all at once: a number an
    /// observation took one shared counter's update, which the event loops' cores passed back
    /// and forth five times a push.
    mutating func takeObservations() -> [Observation] {
        let made = observations.count - firstObservation
        if made > 0 {
            var sequence = reserveSequences(made)
            for index in firstObservation..<observations.count {
                observations[index].sequence = sequence
                sequence += 1
            }
        }
        var taken: [Observation] = []
        swap(&taken, &observations)
        return taken
    }

    mutating func record(_ app: Int, _ notificationID: APNsID?, _ event: ObservationEvent) {
        record(bundleID: device.apps[app].bundleID, notificationID, event)
    }

    /// `entry` left the app's Notification Center.
    mutating func recordRemoval(_ app: Int, _ entry: DeliveredNotification, reason: RemovalReason) {
        record(app, entry.notificationIDValue, .notificationCenter(.removed, reason: reason))
        observations[observations.count - 1].removedEntryDeliveredAt = entry.deliveredAt
    }

    /// An observation about no app of the device (an MDM check-in): `bundleID` names the topic.
    mutating func record(bundleID: String, _ notificationID: APNsID?, _ event: ObservationEvent) {
        observations.append(Observation(
            sequence: 0, time: now, deviceID: device.id, bundleID: bundleID, notificationIDValue: notificationID, event: event
        ))
    }

    /// Records a callback if the app implements it; returns whether it did.
    @discardableResult
    mutating func call(_ app: Int, _ callback: AppCallback, _ notificationID: APNsID? = nil, _ arguments: CallbackArguments = CallbackArguments()) -> Bool {
        let sdk = device.apps[app].sdk
        guard AppCallback.extensionEntryPoints.contains(callback) || device.apps[app].implements.contains(callback)
            || (sdk != nil && AppCallback.thirdPartySDK.contains(callback)) else { return false }
        // ActivityKit's sequences yield only to an app that runs.
        if AppCallback.activityKit.contains(callback), device.apps[app].state == .notRunning { return false }
        // An SDK that registered for notifications is the notification center's delegate.
        var observed = callback
        var arguments = arguments
        if let replacement = sdk?.replacement(for: callback, api: device.apps[app].api) {
            observed = replacement
            if replacement == .getuiDidReceiveSilence { arguments.sdk = .object([("fromGetui", .bool(false)), ("offLine", .bool(false))]) }
        }
        record(app, notificationID, .callback(observed, appState: device.apps[app].state, arguments: arguments))
        noteProviderEvent(app, callback, notificationID, arguments)
        return true
    }

    mutating func setState(_ app: Int, _ state: AppState) {
        let from = device.apps[app].state
        guard from != state else { return }
        device.apps[app].state = state
        record(app, nil, .appState(from: from, to: state))
    }

    // MARK: Life cycle

    /// The first half of coming on screen: launch (with `launchOptions`) or resume, up to the
    /// moment the app is inactive; notification callbacks run between this and `finishForeground`.
    mutating func beginForeground(_ app: Int, launchOptions: JSONValue) {
        switch device.apps[app].state {
        case .notRunning:
            setState(app, .inactive)
            launched(app, launchOptions: launchOptions)
        case .background:
            call(app, .willEnterForeground)
            setState(app, .inactive)
        case .inactive, .foreground:
            break
        }
    }

    mutating func finishForeground(_ app: Int) {
        guard device.apps[app].state != .foreground else { return }
        setState(app, .foreground)
        call(app, .didBecomeActive)
    }

    /// Makes sure the app runs, at least in the background: a not-running app is launched into
    /// the background; a suspended one is resumed (no callback marks that).
    mutating func wakeInBackground(_ app: Int, launchOptions: JSONValue) {
        guard device.apps[app].state == .notRunning else { return }
        setState(app, .background)
        launched(app, launchOptions: launchOptions)
    }

    mutating func moveToBackground(_ app: Int) {
        switch device.apps[app].state {
        case .foreground, .inactive:
            setState(app, .background)
            call(app, .didEnterBackground)
        case .notRunning:
            wakeInBackground(app, launchOptions: .object([]))
        case .background:
            break
        }
    }

    mutating func terminate(_ app: Int, by who: Termination) {
        device.apps[app].terminatedBy = who
        setState(app, .notRunning)
    }

    /// Apps that are running when their device or install is created have launched at that
    /// moment, with empty launch options: each hears every token a first launch tells it, and
    /// one on screen became active (docs/SIMULATOR.md 4.1).
    mutating func launchRunningApps() {
        for app in device.apps.indices where device.apps[app].awaitsLaunch {
            launched(app, launchOptions: .object([]))
            if device.apps[app].state == .foreground { call(app, .didBecomeActive) }
        }
    }

    private mutating func launched(_ app: Int, launchOptions: JSONValue) {
        call(app, .didFinishLaunching, nil, CallbackArguments(launchOptions: launchOptions))
        let firstLaunch = !device.apps[app].tokenAnnounced
        // The app registers for remote notifications at launch; after an install it learns its token.
        if firstLaunch {
            device.apps[app].tokenAnnounced = true
            call(app, .didRegisterForRemoteNotifications, nil, CallbackArguments(deviceToken: device.apps[app].deviceToken))
        }
        announceServiceTokens(app, firstLaunch: firstLaunch)
        noteSDKLaunch(app)
        if let token = device.apps[app].liveActivities?.pushToStartToken, device.apps[app].liveActivities?.pushToStartTokenAnnounced == false {
            device.apps[app].liveActivities!.pushToStartTokenAnnounced = true
            call(app, .pushToStartTokenUpdates, nil, CallbackArguments(deviceToken: token))
        }
    }

    static func launchOptions(_ key: String, _ userInfo: JSONValue) -> JSONValue { .object([(key, userInfo)]) }
}
