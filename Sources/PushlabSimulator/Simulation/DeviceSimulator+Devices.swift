import PushlabCore

/// Devices and app installs: adding, changing, reinstalling and removing them. Every token an
/// install gets is registered in the APNs world; uninstall and reinstall unregister the old one
/// from that moment, so APNs answers 410 `Unregistered` with that time.
extension DeviceSimulator {
    /// Adds a device. An empty `id` gets one; an app with an empty `deviceToken` gets a new token.
    @discardableResult
    public func addDevice(_ device: SimulatedDevice) throws(SimulatorError) -> SimulatedDevice {
        var device = device
        if device.id.isEmpty { device.id = newDeviceID() }
        if device.name.isEmpty { device.name = device.id }
        var seen = Set<String>()
        for index in device.apps.indices {
            guard seen.insert(device.apps[index].bundleID).inserted else {
                throw SimulatorError(.invalid, "Device \(device.id) lists app \(device.apps[index].bundleID) twice")
            }
            device.apps[index].deviceToken = try assignToken(device.apps[index].deviceToken, bundleID: device.apps[index].bundleID)
            try prepareLiveActivities(&device.apps[index], iosVersion: device.iosVersion)
            try prepareServices(&device.apps[index])
        }
        try prepareMDM(&device)
        var launches = CreationLaunches()
        launchRunningApps(&device, into: &launches)
        try insertAll([device])
        world.register(device.tokenRecords)
        tell(device.tokenRecords.map { .register($0) }, of: device.id)
        publish(launches)
        return device
    }

    /// Adds many devices at once (a scenario, a benchmark's million): tokens registered in one pass.
    /// All or nothing: every device is checked and given its tokens before any is added, and one
    /// that cannot be added takes back those added before it.
    public func addDevices(_ devices: [SimulatedDevice], progress: LoadProgress? = nil) throws(SimulatorError) {
        var prepared: [SimulatedDevice] = []
        prepared.reserveCapacity(devices.count)
        var records: [DeviceTokenRecord] = []
        records.reserveCapacity(devices.count)
        // Packed keys: a million 64-digit tokens hash and compare as words, not strings.
        var tokens = Set<DeviceTokenKey>(minimumCapacity: devices.count)
        var launches = CreationLaunches()
        for device in devices {
            var ready = try preparedDevice(device)
            launchRunningApps(&ready, into: &launches)
            try collectNewTokens(of: ready, seen: &tokens, into: &records)
            prepared.append(ready)
            progress?.count(.registeringDevices, done: prepared.count, of: devices.count)
        }
        try insertAll(prepared)
        world.register(records)
        publish(launches)
    }

    /// Appends the device's token records to `records`, each checked to be new: not given twice
    /// among those `seen` so far, and no other device's in the world.
    func collectNewTokens(of device: SimulatedDevice, seen: inout Set<DeviceTokenKey>, into records: inout [DeviceTokenRecord]) throws(SimulatorError) {
        for record in device.tokenRecords {
            let key = DeviceTokenKey(record.token)
            guard seen.insert(key).inserted else {
                throw SimulatorError(.conflict, "Device token \(record.token) is given twice (the second time on device \(device.id))")
            }
            if let owner = world.token(key)?.deviceID {
                throw SimulatorError(.conflict, "Device token \(record.token) already belongs to device \(owner)")
            }
            records.append(record)
        }
    }

    /// The device with its id, name and every token it lacked; nothing is added yet.
    func preparedDevice(_ device: SimulatedDevice) throws(SimulatorError) -> SimulatedDevice {
        var device = device
        if device.id.isEmpty { device.id = newDeviceID() }
        if device.name.isEmpty { device.name = device.id }
        for index in device.apps.indices {
            if device.apps[index].deviceToken.isEmpty { device.apps[index].deviceToken = newToken() }
            try prepareLiveActivities(&device.apps[index], iosVersion: device.iosVersion)
            try prepareServices(&device.apps[index])
        }
        try prepareMDM(&device)
        return device
    }

    public func device(_ id: String) -> SimulatedDevice? { try? readDevice(id) { $0 } }

    /// Every device, by id. With a million devices prefer `deviceCount` and `device(_:)`.
    public var devices: [SimulatedDevice] {
        var all: [SimulatedDevice] = []
        forEachShard { all += $0.devices.values }
        return all.sorted { $0.id < $1.id }
    }

    /// The first `limit` devices by id. A page of a million devices keeps only the page while it
    /// looks: each device is compared with the largest id kept so far, and copied only if it
    /// belongs in the page.
    public func devices(limit: Int) -> [SimulatedDevice] {
        guard limit > 0 else { return [] }
        guard limit <= FirstByID.largestPage else {
            // Deep pages: keeping them sorted while looking would move too much; sort once.
            var all: [SimulatedDevice] = []
            forEachShard { all += $0.devices.values }
            all.sort { $0.id < $1.id }
            return Array(all.prefix(limit))
        }
        var first = FirstByID(limit: limit)
        forEachShard { shard in
            for device in shard.devices.values { first.offer(device) }
        }
        return first.devices
    }

    /// Pushes never add or remove devices, so counting them need not wait for queued ones.
    /// The first `limit` devices by id of those `include` accepts (a search), and how many it
    /// accepts in all. As `devices(limit:)`, a small page copies only the devices it may keep.
    public func devices(limit: Int, where include: (SimulatedDevice) -> Bool) -> (devices: [SimulatedDevice], matching: Int) {
        var matching = 0
        guard limit > FirstByID.largestPage else {
            var first = FirstByID(limit: max(0, limit))
            forEachShard { shard in
                for device in shard.devices.values where include(device) {
                    matching += 1
                    first.offer(device)
                }
            }
            return (first.devices, matching)
        }
        var all: [SimulatedDevice] = []
        forEachShard { shard in all += shard.devices.values.filter(include) }
        all.sort { $0.id < $1.id }
        return (Array(all.prefix(limit)), all.count)
    }

    public var deviceCount: Int {
        var count = 0
        forEachShard(settling: false) { count += $0.devices.count }
        return count
    }

    /// The device and app a token belongs to, if a simulated app holds it now.
    public func owner(ofToken token: String) -> (device: SimulatedDevice, app: AppInstall)? {
        guard let deviceID = world.token(token.lowercased())?.deviceID, let device = device(deviceID),
              let app = device.apps.first(where: { $0.deviceToken == token.lowercased() }) else { return nil }
        return (device, app)
    }

    /// Removes a device; its apps' tokens become `Unregistered` now.
    public func removeDevice(_ id: String) throws(SimulatorError) {
        let device = try delete(id)
        unregister(device.tokenRecords.map(\.token), of: id, at: clock.now())
    }

    /// Changes a device's switches; nil leaves one as it is. Coming online delivers what APNs
    /// stored; leaving low power mode releases what it held.
    @discardableResult
    public func updateDevice(_ id: String, name: String? = nil, online: Bool? = nil, locked: Bool? = nil, lowPowerMode: Bool? = nil, focus: Bool? = nil, utcOffsetSeconds: Int? = nil) throws(SimulatorError) -> SimulatedDevice {
        try withSession(id) { session throws(SimulatorError) in
            if let name { session.device.name = name }
            if let locked { session.device.locked = locked }
            if let focus { session.device.focus = focus }
            if let utcOffsetSeconds { session.device.utcOffsetSeconds = utcOffsetSeconds }
            let wasOnline = session.device.online
            if let online { session.device.online = online }
            if !wasOnline, session.device.online { session.deliverStored() }
            let wasLowPower = session.device.lowPowerMode
            if let lowPowerMode { session.device.lowPowerMode = lowPowerMode }
            if wasLowPower, !session.device.lowPowerMode { session.releaseLowPowerHolds() }
            return session.device
        }
    }

    /// Installs an app; an empty `deviceToken` gets a new one.
    @discardableResult
    public func install(_ app: AppInstall, on deviceID: String) throws(SimulatorError) -> AppInstall {
        var app = app
        let iosVersion = try readDevice(deviceID) { $0.iosVersion }
        app.deviceToken = try assignToken(app.deviceToken, bundleID: app.bundleID)
        try prepareLiveActivities(&app, iosVersion: iosVersion)
        try prepareServices(&app)
        let installed = try withSession(deviceID) { session throws(SimulatorError) -> AppInstall in
            guard session.device.appIndex(app.bundleID) == nil else {
                throw SimulatorError(.conflict, "\(app.bundleID) is already installed on \(deviceID); reinstall it or uninstall it first")
            }
            session.device.apps.append(app)
            return app
        }
        register(installed, on: deviceID)
        guard installed.state != .notRunning else { return installed }
        // Launched once its tokens are registered: its backend may push to them at once.
        return try withSession(deviceID) { session throws(SimulatorError) -> AppInstall in
            let index = try session.appIndex(installed.bundleID)
            session.launchRunningApps()
            return session.device.apps[index]
        }
    }

    /// Changes an app's settings in place (not its token: reinstall for that).
    @discardableResult
    public func updateApp(_ bundleID: String, on deviceID: String, _ change: (inout AppInstall) -> Void) throws(SimulatorError) -> AppInstall {
        try withSession(deviceID) { session throws(SimulatorError) in
            let app = try session.appIndex(bundleID)
            let token = session.device.apps[app].deviceToken
            change(&session.device.apps[app])
            session.device.apps[app].deviceToken = token
            session.device.apps[app].bundleID = bundleID
            return session.device.apps[app]
        }
    }

    /// A user's or the system's change of an app's state.
    public func changeApp(_ bundleID: String, on deviceID: String, to change: AppStateChange) throws(SimulatorError) {
        try withSession(deviceID) { session throws(SimulatorError) in try session.change(bundleID, to: change) }
    }

    /// Deletes and installs the app again: a new token; the old one is `Unregistered` from now.
    /// Settings stay; badge, Notification Center, pending local notifications and held pushes go.
    @discardableResult
    public func reinstall(_ bundleID: String, on deviceID: String) throws(SimulatorError) -> AppInstall {
        let token = newUniqueToken()
        let pushToStartToken = newUniqueToken()
        var services = try readDevice(deviceID) { $0.app(bundleID)?.services }
        if var fresh = services {
            // A reinstall is a new install: new tokens, and a VoIP app starts with a clean record.
            for (kind, _) in fresh.tokens { fresh.setToken(newUniqueToken(), for: kind) }
            fresh.voip?.failedReports = 0
            fresh.voip?.deliveryStopped = false
            fresh.widgets?.reloads = []
            fresh.complication?.deliveries = []
            services = fresh
        }
        let (old, new) = try withSession(deviceID) { session throws(SimulatorError) -> (AppInstall, AppInstall) in
            let app = try session.appIndex(bundleID)
            let old = session.device.apps[app]
            session.discardHeld(app)
            var fresh = AppInstall(
                bundleID: bundleID, environment: old.environment, deviceToken: token, api: old.api, implements: old.implements,
                authorization: old.authorization, remoteNotificationBackgroundMode: old.remoteNotificationBackgroundMode,
                categories: old.categories, willPresentOptions: old.willPresentOptions, serviceExtension: old.serviceExtension,
                services: services, serviceExtensionBehavior: old.serviceExtensionBehavior, provider: old.provider,
                // The SDK's id survives a reinstall (SERVICES.md); its connection drops with the app.
                sdk: old.sdk
            )
            fresh.state = .notRunning
            if let support = old.liveActivities {
                fresh.liveActivities = LiveActivitySupport(
                    enabled: support.enabled, frequentUpdates: support.frequentUpdates, frequentUpdatesEnabled: support.frequentUpdatesEnabled,
                    pushToStartToken: support.pushToStartToken == nil ? nil : pushToStartToken, attributesTypes: support.attributesTypes
                )
            }
            if old.state != .notRunning { session.setState(app, .notRunning) }
            session.device.apps[app] = fresh
            return (old, fresh)
        }
        unregister(old.allTokens, of: deviceID, at: clock.now())
        register(new, on: deviceID)
        return new
    }

    /// Deletes the app; its token is `Unregistered` from now.
    public func uninstall(_ bundleID: String, from deviceID: String) throws(SimulatorError) {
        let old = try withSession(deviceID) { session throws(SimulatorError) -> AppInstall in
            let app = try session.appIndex(bundleID)
            session.discardHeld(app)
            if session.device.apps[app].state != .notRunning { session.setState(app, .notRunning) }
            return session.device.apps.remove(at: app)
        }
        unregister(old.allTokens, of: deviceID, at: clock.now())
    }

    // MARK: Tokens

    private func assignToken(_ requested: String, bundleID: String) throws(SimulatorError) -> String {
        guard !requested.isEmpty else { return newUniqueToken() }
        let token = requested.lowercased()
        guard DeviceTokenRecord.isWellFormed(token) else {
            throw SimulatorError(.invalid, "\(requested) is not a device token (\(DeviceTokenRecord.formatHint))")
        }
        if let existing = world.token(token), existing.deviceID != nil {
            throw SimulatorError(.conflict, "Device token \(token) already belongs to \(existing.bundleID) on device \(existing.deviceID!)")
        }
        return token
    }

    /// An app with Live Activities on iOS 17.2 or later has a push-to-start token: the one given
    /// (checked like a device token) or a new one.
    private func prepareLiveActivities(_ app: inout AppInstall, iosVersion: String) throws(SimulatorError) {
        guard app.liveActivities != nil else { return }
        try startListedActivities(&app)
        guard DeviceSession.supportsPushToStart(iosVersion: iosVersion) else {
            if app.liveActivities?.pushToStartToken != nil {
                throw SimulatorError(.invalid, "\(app.bundleID): iOS \(iosVersion) has no push-to-start tokens (iOS 17.2 and later)")
            }
            return
        }
        app.liveActivities!.pushToStartToken = try assignToken(app.liveActivities!.pushToStartToken ?? "", bundleID: app.bundleID)
        if app.liveActivities!.pushToStartToken == app.deviceToken {
            throw SimulatorError(.invalid, "\(app.bundleID): the push-to-start token must differ from the device token")
        }
    }

    /// Activities written in a scenario start when their device is added: an id, a start time
    /// and, for `pushType: token`, their token.
    private func startListedActivities(_ app: inout AppInstall) throws(SimulatorError) {
        guard let count = app.liveActivities?.activities.count, count > 0 else { return }
        guard count <= settings.liveActivitiesPerApp else {
            throw SimulatorError(.invalid, "\(app.bundleID) lists \(count) Live Activities; the limit is \(settings.liveActivitiesPerApp) (simulator.liveActivitiesPerApp)")
        }
        for index in 0..<count {
            var activity = app.liveActivities!.activities[index]
            if activity.id.isEmpty { activity.id = LiveActivity.makeID(hex: newToken()) }
            if activity.startedAt == LiveActivity.notYetStarted { activity.startedAt = clock.now() }
            if let token = activity.pushToken { activity.pushToken = try assignToken(token, bundleID: app.bundleID) }
            app.liveActivities!.activities[index] = activity
        }
    }

    /// Each push service gets its own token: the one given (checked like a device token) or a new one.
    private func prepareServices(_ app: inout AppInstall) throws(SimulatorError) {
        guard let services = app.services else { return }
        for (kind, token) in services.tokens {
            let assigned = try assignToken(token, bundleID: app.bundleID)
            if app.allTokens.filter({ $0 == assigned }).count > (token.isEmpty ? 0 : 1) {
                throw SimulatorError(.invalid, "\(app.bundleID): the \(kind.rawValue) token \(assigned) is also another token of the app")
            }
            app.services!.setToken(assigned, for: kind)
        }
    }

    private func prepareMDM(_ device: inout SimulatedDevice) throws(SimulatorError) {
        guard let mdm = device.mdm else { return }
        if mdm.topic.isEmpty { throw SimulatorError(.invalid, "\(device.id): mdm.topic must not be empty") }
        device.mdm!.token = try assignToken(mdm.token, bundleID: mdm.topic)
    }

    func newUniqueToken() -> String {
        while true {
            let token = newToken()
            if world.token(token) == nil { return token }
        }
    }

    /// The app's tokens into the world, and to the other nodes of a cluster.
    private func register(_ app: AppInstall, on deviceID: String) {
        let records = app.tokenRecords(deviceID: deviceID)
        world.register(records)
        tell(records.map { .register($0) }, of: deviceID)
    }

    /// `Unregistered` from `time` on, in the world and on the other nodes of a cluster.
    private func unregister(_ tokens: [String], of deviceID: String, at time: EpochMilliseconds) {
        for token in tokens { world.unregister(token: token, at: time) }
        tell(tokens.map { .unregister($0, at: time) }, of: deviceID)
    }
}

extension DeviceSession {
    /// An app going away takes what APNs and the system held for it, and its Notification
    /// Center entries.
    mutating func discardHeld(_ app: Int) {
        var held: [PendingPush] = device.apps[app].heldLowPriority
        if let stored = device.apps[app].storedWhileOffline { held.append(stored) }
        if let background = device.apps[app].heldBackground { held.append(background) }
        for push in held { record(app, push.apnsIDValue, .discarded(.appUninstalled, replacedBy: nil)) }
        for broadcast in device.apps[app].liveActivities?.storedBroadcasts ?? [] {
            record(app, broadcast.push.apnsIDValue, .discarded(.appUninstalled, replacedBy: nil))
        }
        dismissAllActivities(app)
        for entry in device.apps[app].notificationCenter {
            recordRemoval(app, entry, reason: .appUninstalled)
        }
        device.apps[app].notificationCenter = []
    }
}

/// The `limit` devices with the smallest ids among those offered, in order.
struct FirstByID {
    /// Up to this many, a sorted array with binary insertion beats sorting every device.
    static let largestPage = 2_048
    let limit: Int
    private(set) var devices: [SimulatedDevice] = []

    init(limit: Int) {
        self.limit = limit
    }

    mutating func offer(_ device: SimulatedDevice) {
        if devices.count == limit {
            guard let last = devices.last, device.id < last.id else { return }
            devices.removeLast()
        }
        devices.insert(device, at: insertionIndex(for: device.id))
    }

    private func insertionIndex(for id: String) -> Int {
        var low = 0
        var high = devices.count
        while low < high {
            let middle = (low + high) / 2
            if devices[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
