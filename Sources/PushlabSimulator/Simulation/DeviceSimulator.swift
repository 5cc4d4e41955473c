import PushlabCore
import Synchronization

/// Every simulated device, safe to use from any thread: the APNs layer hands it accepted pushes
/// (it is a `PushSink`), the control API and scenarios change devices, and the clock fires
/// what is due. Each device is changed under its shard's lock by a `DeviceSession`.
///
/// Device logic only: a push handed to `accept` is delivered on the caller's thread. Whoever
/// queues pushes instead (PushlabDelivery's pipeline) delivers them through `deliver(_:resumed:into:)`
/// and installs a settle hook (`installSettleHook`): every read or change of the devices calls it
/// first, so callers see what was accepted before them either way.
public final class DeviceSimulator: PushSink, Sendable {
    public let world: APNsWorld
    public let clock: any PushlabClock
    public let settings: SimulatorSettings

    struct Shard {
        var devices: [String: SimulatedDevice] = [:]
        /// Devices with something due, and when.
        var dueTimes: [String: EpochMilliseconds] = [:]
        /// Devices changed since the store last asked.
        var changed: Set<String> = []
        /// Of `changed`, devices whose held pushes changed (`AppInstall.heldRevision`).
        var heldChanged: Set<String> = []
        var removed: Set<String> = []
    }

    let shards: [LockedShard<Shard>]
    private let sequence = Atomic<Int64>(0)
    /// Devices in the shards' `heldChanged`, read without a lock by a store at every batch.
    let heldChangeCount = Atomic<Int>(0)
    private let sinks = Mutex<[(id: Int, sink: any ObservationSink)]>([])
    private let nextSinkID = Atomic<Int>(1)
    private let tokens: Mutex<APNsIDGenerator>
    private let tokenSeed: UInt64?
    /// For tokens a phone makes itself (a Live Activity's), and on a cluster node every token but
    /// a scenario's: with a seed, apart from `tokens` and random, so that `tokens` stays the
    /// scenario's alone (each node makes the same scenario tokens), and no two nodes make one
    /// token for two phones.
    private let sessionTokens: Mutex<APNsIDGenerator?>
    /// A cluster node's scenario phones, for the partitions it gains (`adopt`).
    let sharedPhones = Mutex<SharedPhones?>(nil)
    private let deviceCounter = Atomic<Int>(0)
    /// Serializes clock advances so catching up runs once at a time.
    private let advancing = Mutex(())
    private let settleHook = AtomicLazyReference<SettleHook>()
    private let providerSender = Mutex<(any ProviderRequestSender)?>(nil)
    let sdkConnector = Mutex<(any ThirdPartySDKConnector)?>(nil)
    let simulatedHere = Mutex<Hook<@Sendable (String) -> Bool>?>(nil)
    let tokenListener = Mutex<Hook<TokenListener>?>(nil)
    /// What apps created running did at their launch, while nobody listens yet (nil: published
    /// at once). See `holdCreationLaunches`.
    let heldLaunches = Mutex<CreationLaunches?>(nil)
    private let payloadContents = PayloadContents()

    public init(world: APNsWorld, clock: any PushlabClock = SystemClock(), settings: SimulatorSettings = SimulatorSettings(), tokenSeed: UInt64? = nil, shards: Int = 16) {
        self.world = world
        self.clock = clock
        self.settings = settings
        self.shards = (0..<max(1, shards)).map { _ in LockedShard(Shard()) }
        tokens = Mutex(tokenSeed.map(APNsIDGenerator.init(seed:)) ?? APNsIDGenerator())
        self.tokenSeed = tokenSeed
        sessionTokens = Mutex(tokenSeed == nil ? nil : APNsIDGenerator())
    }

    // MARK: Observers

    /// Hands every batch of observations to `sink` from now on; the id takes it off again.
    @discardableResult
    public func addSink(_ sink: any ObservationSink) -> Int {
        let id = nextSinkID.add(1, ordering: .relaxed).oldValue
        sinks.withLock { $0.append((id, sink)) }
        return id
    }

    /// Stops handing observations to the sink `addSink` returned `id` for.
    public func removeSink(_ id: Int) {
        sinks.withLock { $0.removeAll { $0.id == id } }
    }

    /// The sequence number of the newest observation (0 before any).
    public var lastSequence: Int64 { sequence.load(ordering: .acquiring) }

    /// Continues numbering after observations loaded from a store.
    public func resumeSequence(after last: Int64) {
        _ = sequence.max(last, ordering: .acquiringAndReleasing)
    }

    // MARK: Running sessions

    private func shard(_ deviceID: String) -> LockedShard<Shard> { shards[shardIndex(deviceID)] }

    func shardIndex(_ deviceID: String) -> Int {
        Int(FNV1a(deviceID).state % UInt64(shards.count))  // stable, unlike hashValue
    }

    /// Runs `body` on one device at the current time, after whatever was due before it and every
    /// push accepted before the call.
    func withSession<T: Sendable>(_ deviceID: String, _ body: (inout DeviceSession) throws(SimulatorError) -> T) throws(SimulatorError) -> T {
        settle()
        return try runSession(deviceID, at: clock.now(), body)
    }

    func runSession<T: Sendable>(_ deviceID: String, at now: EpochMilliseconds, _ body: (inout DeviceSession) throws(SimulatorError) -> T) throws(SimulatorError) -> T {
        var observations: [Observation] = []
        var sdkEvents: [ThirdPartySDKEvent] = []
        // The services hear of the SDKs after the sinks have what caused it: what they hand
        // back is observed after it.
        defer {
            publish(observations)
            if !sdkEvents.isEmpty { connect(sdkEvents) }
        }
        return try runSession(deviceID, at: now, observed: &observations, sdkEvents: &sdkEvents, body)
    }

    /// Runs the session and appends its observations to `observed`, for the caller to publish
    /// (a run of queued pushes publishes once, and its pushes share one array: `ObservationRun`).
    private func runSession<T: Sendable>(
        _ deviceID: String, at now: EpochMilliseconds, observed: inout [Observation], sdkEvents: inout [ThirdPartySDKEvent],
        _ body: (inout DeviceSession) throws(SimulatorError) -> T
    ) throws(SimulatorError) -> T {
        var tokenChanges: [DeviceSession.TokenChange] = []
        var providerRequests: [ProviderRequest] = []
        var madeEvents: [ThirdPartySDKEvent] = []
        defer {
            apply(tokenChanges, at: now)
            if !tokenChanges.isEmpty { tell(tokenChanges, of: deviceID) }
            if !providerRequests.isEmpty { send(providerRequests) }
            sdkEvents += madeEvents
        }
        let result: Result<T, SimulatorError> = shard(deviceID).withLock { shard in
            // Taken out while the session runs (a vacant device in its place, so the slot is found
            // once and the dictionary never rehashes the id), so the session holds the only
            // reference and its changes (Notification Center, the apps) are made in place
            // rather than copied.
            guard let slot = shard.devices.index(forKey: deviceID) else { return .failure(.unknownDevice(deviceID)) }
            var device = SimulatedDevice.vacant
            swap(&device, &shard.devices.values[slot])
            let before = device.revisions
            var handedIn: [Observation] = []
            swap(&handedIn, &observed)
            var session = DeviceSession(
                device: consume device, settings: settings, now: now, observingInto: consume handedIn,
                reserveSequences: { [self] count in reserveSequences(count) }, newToken: { [self] in newUniqueSessionToken() }
            )
            defer {
                session.settleSDKConnections()
                madeEvents = session.sdkEvents
                tokenChanges = session.tokenChanges
                providerRequests = session.providerRequests
                // The rules check before they change anything: what a failed session observed
                // is what ran before the failure (due events), and it still happened.
                observed = session.takeObservations()
                store(&session, before: before, at: slot, in: &shard)
            }
            session.runDue(until: now)
            do throws(SimulatorError) {
                return .success(try body(&session))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Provider backends

    /// Who sends the requests apps make to their backends; without one they are recorded as
    /// `failed`, never sent.
    public func setProviderRequestSender(_ sender: (any ProviderRequestSender)?) {
        providerSender.withLock { $0 = sender }
    }

    func send(_ requests: [ProviderRequest]) {
        var requests = requests
        requests.removeAll { !isSimulatedHere($0.deviceID) }
        guard !requests.isEmpty else { return }
        if let sender = providerSender.withLock({ $0 }) {
            sender.send(requests)
            return
        }
        for request in requests {
            recordProviderResponse(ProviderResponse(
                event: request.event, method: request.method, url: request.url, status: nil, milliseconds: 0, excerpt: nil, failure: .failed,
                message: "No HTTP client is connected to this simulator: the request was not sent"
            ), for: request)
        }
    }

    /// Records what became of a provider request, on its device, at the clock's time now.
    public func recordProviderResponse(_ response: ProviderResponse, for request: ProviderRequest) {
        try? runSession(request.deviceID, at: clock.now()) { session throws(SimulatorError) in
            session.record(bundleID: request.bundleID, request.notificationID.map(APNsID.init), .providerRequest(response))
        }
    }

    /// Tells APNs's world about the Live Activity tokens a session issued or retired.
    private func apply(_ changes: [DeviceSession.TokenChange], at time: EpochMilliseconds) {
        for change in changes {
            switch change {
            case .register(let record): world.register(record)
            case .unregister(let token, let at): world.unregister(token: token, at: at)
            }
        }
    }

    /// Puts the session's device back (moved, not copied: the session is done with it, and a
    /// copy retained every part only for the session to release them); it counts as changed for
    /// the store only when more than its Notification Centers changed.
    private func store(_ session: inout DeviceSession, before: SimulatedDevice.Revisions, at slot: Dictionary<String, SimulatedDevice>.Index, in shard: inout Shard) {
        let id = session.device.id
        let after = session.device.revisions
        if after != before {
            shard.changed.insert(id)
            if after.held != before.held, shard.heldChanged.insert(id).inserted { heldChangeCount.add(1, ordering: .relaxed) }
        }
        let due = session.nextDueTime
        swap(&shard.devices.values[slot], &session.device)
        if let due {
            shard.dueTimes[id] = due
        } else if !shard.dueTimes.isEmpty {
            shard.dueTimes[id] = nil
        }
    }

    func publish(_ observations: [Observation]) {
        guard !observations.isEmpty else { return }
        for entry in sinks.withLock({ $0 }) { entry.sink.record(observations) }
    }

    /// Hands the run's observations to every sink, with the positions of the log its pushes
    /// reached (`ObservationSink.record(batches:taking:)`: a log that is also a sink commits
    /// them together), leaving the run empty. Returns those positions, for whoever keeps a log
    /// that is no sink to mark them taken once the sinks have the observations.
    @discardableResult
    public func publish(_ run: inout ObservationRun) -> [LoggedPushPosition] {
        var sdkEvents: [ThirdPartySDKEvent] = []
        swap(&sdkEvents, &run.sdkEvents)
        defer { if !sdkEvents.isEmpty { connect(sdkEvents) } }
        guard let (batches, taking) = run.take() else { return [] }
        let sinks = sinks.withLock { $0 }
        guard !taking.isEmpty else {
            for entry in sinks { entry.sink.record(batches: batches) }
            return []
        }
        for entry in sinks { entry.sink.record(batches: batches, taking: taking) }
        return taking
    }

    /// The first of `count` new sequence numbers.
    func reserveSequences(_ count: Int) -> Int64 { sequence.add(Int64(count), ordering: .relaxed).newValue - Int64(count) + 1 }

    // MARK: PushSink

    /// Parsed here, and only for a token a simulated device holds: a load test's bare tokens
    /// never pay for it.
    public var needsPayload: Bool { false }

    /// Only tokens a simulated device holds lead anywhere.
    public func takesPushes(toDevice deviceID: String?) -> Bool { deviceID != nil }

    public func accept(_ push: AcceptedPush) {
        accept([push])
    }

    /// The pushes of one read, delivered now on the caller's thread, their observations published
    /// in runs.
    public func accept(_ pushes: [AcceptedPush]) {
        accept(pushes, resumed: false)
    }

    /// The same for pushes kept across a restart (`resumed`: each observation says `afterRestart`).
    public func accept(_ pushes: [AcceptedPush], resumed: Bool) {
        var run = ObservationRun(pushes: pushes.count)
        pushes.withUnsafeBufferPointer { pushes in
            for index in pushes.indices {
                deliver(pushes.baseAddress! + index, resumed: resumed, into: &run)
                if run.isFull { publish(&run) }
            }
        }
        publish(&run)
    }

    /// The device observes a push at the time APNs accepted it, whenever it is delivered; its
    /// observations join `run`, for the caller to publish. Read where it lies, so that a queue
    /// need not copy it (a copy retains every string it holds). `resumed`: the push was kept
    /// across a restart, and each of its observations says `afterRestart`.
    ///
    /// A resumed push its device already holds (stored while offline, or held back) is not
    /// received again: the device's snapshot was saved after the phone took it, and the crash
    /// came before the taking was committed.
    public func deliver(_ push: UnsafePointer<AcceptedPush>, resumed: Bool, into run: inout ObservationRun) {
        guard resumed else { return deliver(push, resuming: false, into: &run) }
        let first = run.observations.count
        deliver(push, resuming: true, into: &run)
        for index in first..<run.observations.count { run.observations[index].afterRestart = true }
    }

    private func deliver(_ push: UnsafePointer<AcceptedPush>, resuming resumed: Bool, into run: inout ObservationRun) {
        guard let deviceID = push.pointee.deviceID else { return }
        let expiresAt = Self.expiry(of: push.pointee, storage: settings.storageMilliseconds)
        let (content, sharedEntry) = payloadContents.read(push.pointee)
        run.makeRoom()
        try? runSession(deviceID, at: push.pointee.receivedAt, observed: &run.observations, sdkEvents: &run.sdkEvents) { session throws(SimulatorError) in
            if resumed, session.device.holds(push.pointee.apnsIDValue) { return }
            guard let app = session.device.appIndex(token: push.pointee.deviceToken) else {
                if session.device.mdm?.token == push.pointee.deviceToken, let content {
                    session.receiveMDM(PendingPush(
                        apnsID: push.pointee.apnsIDValue, receivedAt: push.pointee.receivedAt, pushType: push.pointee.pushType, priority: push.pointee.priority,
                        expiresAt: expiresAt, collapseID: nil, content: content, token: push.pointee.deviceToken, sharedEntry: nil
                    ))
                }
                return
            }
            guard let content, content.userInfo.isObject else {
                session.record(app, push.pointee.apnsIDValue, .dropped(.unreadablePayload, message: "The payload is not a JSON object; APNs accepted it, the device cannot read it."))
                return
            }
            let pending = PendingPush(
                apnsID: push.pointee.apnsIDValue, receivedAt: push.pointee.receivedAt, pushType: push.pointee.pushType, priority: push.pointee.priority,
                expiresAt: expiresAt, collapseID: push.pointee.collapseID, content: content,
                token: push.pointee.pushType == .alert || push.pointee.pushType == .background ? nil : push.pointee.deviceToken, sharedEntry: sharedEntry
            )
            session.receive(pending, app: app, expiration: push.pointee.expiration, deliverable: push.pointee.isDeliverable)
        }
    }

    /// A broadcast reaches every device with an activity of the app subscribed to the channel:
    /// online ones apply it, offline ones get it stored (or not) by the channel's policy.
    public func accept(broadcast: AcceptedBroadcast) {
        accept(broadcast: broadcast, toDevices: { _ in true })
    }

    /// The broadcast, to the subscribed phones `toDevices` accepts only (a cluster node's one
    /// partition of phones).
    public func accept(broadcast: AcceptedBroadcast, toDevices included: (String) -> Bool) {
        let payload = broadcast.payload ?? (try? JSONParser.parse(broadcast.payloadBytes.array))
        guard let payload, payload.isObject else { return }
        let storage = min(settings.broadcastStorageMilliseconds, settings.storageMilliseconds)
        var expiresAt = broadcast.receivedAt + storage
        if let expiration = broadcast.expiration {
            expiresAt = expiration == 0 ? broadcast.receivedAt : min(expiresAt, expiration.multipliedReportingOverflow(by: 1000).overflow ? expiresAt : expiration * 1000)
        }
        let push = PendingPush(
            apnsID: broadcast.requestID.text, receivedAt: broadcast.receivedAt, pushType: .liveactivity, priority: broadcast.priority,
            expiresAt: expiresAt, collapseID: nil, content: NotificationContent(payload: payload)
        )
        let channel = broadcast.channel
        var subscribers: [String] = []
        forEachShard(settling: false) { shard in
            for (id, device) in shard.devices where included(id) && device.apps.contains(where: { app in
                app.bundleID == channel.bundleID && app.environment == channel.environment
                    && app.liveActivities?.activities.contains { $0.channelID == channel.id && $0.isLive } == true
            }) {
                subscribers.append(id)
            }
        }
        for deviceID in subscribers.sorted() {
            try? runSession(deviceID, at: broadcast.receivedAt) { session throws(SimulatorError) in
                guard let app = session.device.apps.firstIndex(where: { $0.bundleID == channel.bundleID && $0.environment == channel.environment }) else { return }
                if session.device.online {
                    session.record(app, push.apnsIDValue, .delivered(pushType: "liveactivity", priority: push.priority))
                    session.receiveBroadcast(push, channelID: channel.id, app: app)
                } else {
                    session.storeBroadcast(push, channel: channel, app: app)
                }
            }
        }
    }

    /// `apns-expiration` (epoch seconds) bounded by APNs's storage period; 0 expires at once.
    static func expiry(of push: AcceptedPush, storage: EpochMilliseconds) -> EpochMilliseconds {
        let limit = push.receivedAt + storage
        guard let expiration = push.expiration else { return limit }
        if expiration == 0 { return push.receivedAt }
        return min(limit, expiration.multipliedReportingOverflow(by: 1000).overflow ? limit : expiration * 1000)
    }

    // MARK: Settling

    /// Called first by every read or change of the devices (`settle`): whoever queues the pushes
    /// handed to it delivers there what was accepted before. Only the first call counts; false
    /// for a later one.
    @discardableResult
    public func installSettleHook(_ settle: @escaping @Sendable () -> Void) -> Bool {
        let hook = SettleHook(settle)
        return settleHook.storeIfNil(hook) === hook
    }

    /// Delivers everything accepted before the call (through the settle hook). Reads and changes
    /// through the simulator do this themselves; call it before reading what the sinks recorded.
    public func settle() {
        settleHook.load()?.settle()
    }

    // MARK: Time

    /// Runs everything due up to the clock's current time, after what was accepted before it.
    public func runDueEvents() {
        settle()
        runDue(until: clock.now())
    }

    /// Runs everything due up to `time` (a queue's tick, in its turn behind the pushes accepted
    /// before it).
    public func runDue(until time: EpochMilliseconds) {
        advancing.withLock { _ in catchUp(to: time) }
    }

    /// Moves a settable clock forward; everything due on the way happens at its own time.
    public func advanceClock(milliseconds: Int64) throws(SimulatorError) {
        guard let manual = clock as? any SettableClock else {
            throw SimulatorError(.conflict, "The clock is the system's; give the simulator a ManualClock or ControlledClock to advance it")
        }
        guard milliseconds >= 0 else { throw SimulatorError(.invalid, "The clock only moves forward (advance by \(milliseconds) ms)") }
        let (target, overflow) = manual.now().addingReportingOverflow(milliseconds)
        guard !overflow else { throw SimulatorError(.invalid, "The clock cannot move \(milliseconds) ms forward") }
        settle()
        try checkClockMove(to: target)
        advancing.withLock { _ in
            manual.advance(milliseconds: milliseconds)
            catchUp(to: manual.now())
        }
    }

    /// Sets a settable clock; moving it back is allowed (nothing due is replayed).
    public func setClock(_ time: EpochMilliseconds) throws(SimulatorError) {
        guard let manual = clock as? any SettableClock else {
            throw SimulatorError(.conflict, "The clock is the system's; give the simulator a ManualClock or ControlledClock to set it")
        }
        settle()
        try checkClockMove(to: time)
        advancing.withLock { _ in
            manual.set(time)
            catchUp(to: time)
        }
    }

    private func catchUp(to time: EpochMilliseconds) {
        for shard in shards {
            let due: [String] = shard.withLock { shard in shard.dueTimes.compactMap { $0.value <= time ? $0.key : nil } }
            for deviceID in due {
                _ = try? runSession(deviceID, at: time) { _ throws(SimulatorError) in }
            }
        }
    }

    // MARK: Access for the extensions

    func readDevice<T: Sendable>(_ deviceID: String, _ body: (SimulatedDevice) -> T) throws(SimulatorError) -> T {
        settle()
        guard let value = shard(deviceID).withLock({ shard in shard.devices[deviceID].map(body) }) else {
            throw .unknownDevice(deviceID)
        }
        return value
    }

    /// Inserts many devices, one lock per shard; none of them if one's id is taken.
    func insertAll(_ devices: [SimulatedDevice]) throws(SimulatorError) {
        settle()
        var byShard = [[Int]](repeating: [], count: shards.count)
        for (index, device) in devices.enumerated() { byShard[shardIndex(device.id)].append(index) }
        var done: [(shard: Int, added: [Added])] = []
        for (shardIndex, indices) in byShard.enumerated() where !indices.isEmpty {
            let outcome = shards[shardIndex].withLock { shard -> Result<[Added], SimulatorError> in
                shard.devices.reserveCapacity(shard.devices.count + indices.count)
                shard.changed.reserveCapacity(shard.changed.count + indices.count)
                var added: [Added] = []
                added.reserveCapacity(indices.count)
                for index in indices {
                    let device = devices[index]
                    guard shard.devices[device.id] == nil else {
                        Self.undo(added, in: &shard)
                        return .failure(SimulatorError(.conflict, "Device \(device.id) already exists"))
                    }
                    shard.devices[device.id] = device
                    if device.mayHaveDueEvents {
                        shard.dueTimes[device.id] = DeviceSession(device: device, settings: settings, now: clock.now(), reserveSequences: { _ in 0 }).nextDueTime
                    }
                    shard.changed.insert(device.id)
                    added.append(Added(id: device.id, wasRemoved: shard.removed.remove(device.id) != nil))
                }
                return .success(added)
            }
            switch outcome {
            case .success(let added):
                done.append((shardIndex, added))
            case .failure(let error):
                for (index, added) in done { shards[index].withLock { Self.undo(added, in: &$0) } }
                throw error
            }
        }
    }

    /// A device `insertAll` added, and whether it was waiting to be saved as removed.
    struct Added: Sendable {
        var id: String
        var wasRemoved: Bool
    }

    private static func undo(_ added: [Added], in shard: inout Shard) {
        for entry in added {
            shard.devices[entry.id] = nil
            shard.dueTimes[entry.id] = nil
            shard.changed.remove(entry.id)
            if entry.wasRemoved { shard.removed.insert(entry.id) }
        }
    }

    /// `markingRemoved`: the store is told the device went. Off for a device about to be put
    /// back (`restore`): a store writing meanwhile would save the device as removed, and the
    /// next start would lose it.
    func delete(_ deviceID: String, markingRemoved: Bool = true) throws(SimulatorError) -> SimulatedDevice {
        settle()
        guard let device = shard(deviceID).withLock({ shard -> SimulatedDevice? in
            guard let device = shard.devices.removeValue(forKey: deviceID) else { return nil }
            shard.dueTimes[deviceID] = nil
            shard.changed.remove(deviceID)
            if shard.heldChanged.remove(deviceID) != nil { heldChangeCount.subtract(1, ordering: .relaxed) }
            if markingRemoved { shard.removed.insert(deviceID) }
            return device
        }) else { throw .unknownDevice(deviceID) }
        return device
    }

    /// Every shard in turn; `settling` first delivers what was accepted before the call.
    func forEachShard(settling: Bool = true, _ body: (inout Shard) -> Void) {
        if settling { settle() }
        for shard in shards { shard.withLock { body(&$0) } }
    }

    func newToken() -> String {
        if !Self.makingScenarioTokens, isClusterNode, let own = sessionTokens.withLock({ $0?.hex(bytes: 32) }) { return own }
        return tokens.withLock { $0.hex(bytes: 32) }
    }

    /// Set while a cluster node installs a scenario: its tokens come from `tokens`, started
    /// again from the seed, so that every node makes the same ones.
    @TaskLocal static var makingScenarioTokens = false

    func restartScenarioTokens() {
        guard let tokenSeed else { return }
        tokens.withLock { $0 = APNsIDGenerator(seed: tokenSeed) }
    }

    /// A token a phone makes itself (`sessionTokens`), which no other token has.
    func newUniqueSessionToken() -> String {
        while true {
            guard let token = sessionTokens.withLock({ $0?.hex(bytes: 32) }) else { return newUniqueToken() }
            if world.token(token) == nil { return token }
        }
    }

    /// `device-N`, skipping ids already taken (a scenario may use the same pattern).
    func newDeviceID() -> String {
        while true {
            let id = "device-\(deviceCounter.add(1, ordering: .relaxed).newValue)"
            if device(id) == nil { return id }
        }
    }
}

/// What `installSettleHook` installed, in a box an atomic reference can hold.
private final class SettleHook: Sendable {
    let settle: @Sendable () -> Void
    init(_ settle: @escaping @Sendable () -> Void) { self.settle = settle }
}
