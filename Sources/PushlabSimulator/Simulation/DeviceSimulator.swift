import PushlabCore
import Synchronization

/// Every simulated device, safe to use from any thread: the APNs layer hands it accepted pushes
/// (it is a `PushSink`), the control API and scenarios change devices, and the clock fires
/// what is due. Each device is changed under its shard's lock by a `DeviceSession`.
///
/// Pushes are delivered as they are accepted, unless `queueDeliveries` was called: then they
/// wait in a `DeliveryQueue` for a worker, and every read or change of the devices first
/// delivers what was accepted before it, so callers see the same results either way.
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
        var removed: Set<String> = []
    }

    private let shards: [LockedShard<Shard>]
    private let sequence = Atomic<Int64>(0)
    private let sinks = Mutex<[(id: Int, sink: any ObservationSink)]>([])
    private let nextSinkID = Atomic<Int>(1)
    private let tokens: Mutex<APNsIDGenerator>
    private let deviceCounter = Atomic<Int>(0)
    /// Serializes clock advances so catching up runs once at a time.
    private let advancing = Mutex(())
    private let deliveryQueue = AtomicLazyReference<DeliveryQueue>()
    private let providerSender = Mutex<(any ProviderRequestSender)?>(nil)
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

    private func shardIndex(_ deviceID: String) -> Int {
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
        defer { publish(observations) }
        return try runSession(deviceID, at: now, observed: &observations, body)
    }

    /// Runs the session and appends its observations to `observed`, for the caller to publish
    /// (a run of queued pushes publishes once, and its pushes share one array: `ObservationRun`).
    private func runSession<T: Sendable>(
        _ deviceID: String, at now: EpochMilliseconds, observed: inout [Observation], _ body: (inout DeviceSession) throws(SimulatorError) -> T
    ) throws(SimulatorError) -> T {
        var tokenChanges: [DeviceSession.TokenChange] = []
        var providerRequests: [ProviderRequest] = []
        defer {
            apply(tokenChanges, at: now)
            if !providerRequests.isEmpty { send(providerRequests) }
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
                reserveSequences: { [self] count in reserveSequences(count) }, newToken: { [self] in newUniqueToken() }
            )
            defer {
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
        if session.device.revisions != before { shard.changed.insert(id) }
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

    /// The run's observations, and the positions of the log its pushes reached: a log that is
    /// also a sink (the store) hears of them with the observations, to commit them together;
    /// any other log is told once the sinks have the observations.
    private func publish(_ run: inout ObservationRun) {
        guard let (batches, taking) = run.take() else { return }
        let sinks = sinks.withLock { $0 }
        guard !taking.isEmpty else {
            for entry in sinks { entry.sink.record(batches: batches) }
            return
        }
        for entry in sinks { entry.sink.record(batches: batches, taking: taking) }
        if let queue = deliveryQueue.load(), let log = queue.log, !queue.logHearsTakingsAsSink {
            for position in taking { log.markTaken(through: position) }
        }
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

    /// One hand-over (one lock, at most one wake-up) for all the pushes of one read.
    public func accept(_ pushes: [AcceptedPush]) {
        guard let queue = deliveryQueue.load() else {
            var run = ObservationRun(pushes: pushes.count)
            pushes.withUnsafeBufferPointer { pushes in
                for index in pushes.indices {
                    deliver(pushes.baseAddress! + index, into: &run)
                    if run.isFull { publish(&run) }
                }
            }
            publish(&run)
            return
        }
        // Draining, twice what came in, so the queue shrinks by one read's pushes each read;
        // held, a full queue only stays where it is.
        deliver(owing: queue.append(pushes: pushes), to: queue, limit: max(64, pushes.count * (queue.isDraining && !queue.isHeld ? 2 : 1)))
    }

    private func deliver(owing duty: DeliveryQueue.SenderDuty, to queue: DeliveryQueue, limit: Int) {
        switch duty {
        case .none:
            break
        case .deliverUnlessBusy:
            deliver(from: queue, limit: limit, unlessBusy: true)
        case .deliver:
            deliver(from: queue, limit: limit, unlessBusy: false)
        }
    }

    /// The device observes a push at the time APNs accepted it, whenever it is delivered. Read
    /// where it lies (`DeliveryQueue.Item`).
    private func deliver(_ push: UnsafePointer<AcceptedPush>, into run: inout ObservationRun) {
        guard let deviceID = push.pointee.deviceID else { return }
        let expiresAt = Self.expiry(of: push.pointee, storage: settings.storageMilliseconds)
        let (content, sharedEntry) = payloadContents.read(push.pointee)
        run.makeRoom()
        try? runSession(deviceID, at: push.pointee.receivedAt, observed: &run.observations) { session throws(SimulatorError) in
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
        guard let queue = deliveryQueue.load() else {
            deliver(broadcast)
            return
        }
        deliver(owing: queue.append(broadcast: broadcast), to: queue, limit: 64)
    }

    private func deliver(_ broadcast: AcceptedBroadcast) {
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
            for (id, device) in shard.devices where device.apps.contains(where: { app in
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

    // MARK: Queued delivery

    /// From now on accepted pushes wait in a queue of at most `capacity` (beyond it, the sender
    /// delivers a batch itself) until `deliverQueued` or a read takes them. `wake` is called when
    /// the queue stops being empty. Only the first call counts; false for a later one.
    @discardableResult
    ///
    /// `log`: every push appended is logged there first, in the queue's order, and marked taken
    /// once its phone has taken it (`AcceptedPushLog`); a log that is also an `ObservationSink`
    /// must be one of this simulator's sinks, and hears of it with the observations.
    public func queueDeliveries(capacity: Int, log: (any AcceptedPushLog)? = nil, wake: @escaping @Sendable () -> Void) -> Bool {
        let queue = DeliveryQueue(capacity: capacity, log: log, wake: wake)
        return deliveryQueue.storeIfNil(queue) === queue
    }

    /// Hands the pushes a log kept from before a restart to their phones, in order, ahead of
    /// anything accepted since (call it before the listeners start). Each observation they cause
    /// says `afterRestart`; their positions are marked taken as usual. Without a queue they are
    /// delivered now.
    public func resumeDeliveries(_ logged: [LoggedPush]) {
        guard !logged.isEmpty else { return }
        guard let queue = deliveryQueue.load() else {
            var run = ObservationRun(pushes: logged.count)
            logged.withUnsafeBufferPointer { logged in
                for index in logged.indices {
                    withUnsafePointer(to: logged[index].push) { push in
                        deliver(queued: .push(push, nil, resumed: true), into: &run)
                    }
                }
            }
            publish(&run)
            return
        }
        deliver(owing: queue.append(resumed: logged), to: queue, limit: 64)
    }

    /// Delivers up to `limit` queued pushes and ticks, oldest first; how many it delivered.
    public func deliverQueued(limit: Int) -> Int {
        guard let queue = deliveryQueue.load() else { return 0 }
        return deliver(from: queue, limit: limit, unlessBusy: false)
    }

    @discardableResult
    private func deliver(from queue: DeliveryQueue, limit: Int, unlessBusy: Bool) -> Int {
        var run = ObservationRun(pushes: limit)
        return queue.deliver(limit: limit, unlessBusy: unlessBusy, { item in deliver(queued: item, into: &run) }, finish: { publish(&run) })
    }

    /// While a load outlasts a burst (the worker's `BusyHold.isLongLoad`), the senders bring the
    /// queue down to a 64th of its capacity and keep it there: the phones keep pace with the
    /// answers, so that little waits when the load stops. Off when the load stops.
    public func drainQueuedDeliveries(_ on: Bool) {
        deliveryQueue.load()?.setDraining(on)
    }

    /// While on, queued pushes wait for a reader or for the queue's capacity: a sink that
    /// cannot keep up (the store, with as much waiting as it may hold) holds the phones back
    /// rather than lose what they observe. Off lets the worker and the draining senders go on.
    public func holdQueuedDeliveries(_ on: Bool) {
        deliveryQueue.load()?.setHeld(on)
    }

    /// A sink holds the queued pushes (`holdQueuedDeliveries`).
    public var queuedDeliveriesHeld: Bool { deliveryQueue.load()?.isHeld ?? false }

    /// The store holds the queue of a long load and much waits in it (`DeliveryQueue.isBackedUp`):
    /// the transport reads more slowly until the phones catch up.
    public var isBackedUp: Bool { deliveryQueue.load()?.isBackedUp ?? false }

    /// Pushes accepted and not yet delivered.
    public var queuedDeliveries: Int { deliveryQueue.load()?.count ?? 0 }

    /// Pushes and ticks queued since `queueDeliveries`, delivered or not (the intake a worker
    /// measures).
    public var totalQueuedDeliveries: Int64 { deliveryQueue.load()?.appendedCount ?? 0 }

    /// Delivers everything accepted before the call. Reads and changes through the simulator do
    /// this themselves; call it before reading what the sinks recorded.
    public func settle() {
        guard let queue = deliveryQueue.load() else { return }
        var run = ObservationRun()
        queue.settle({ item in deliver(queued: item, into: &run) }, finish: { publish(&run) })
    }

    /// A push joins the run; anything else first publishes the run, so that the sinks see every
    /// observation in the order it was made.
    private func deliver(queued item: DeliveryQueue.Item, into run: inout ObservationRun) {
        if case .push(let push, let position, let resumed) = item {
            let first = run.observations.count
            deliver(push, into: &run)
            if resumed {
                for index in first..<run.observations.count { run.observations[index].afterRestart = true }
            }
            if let position { run.took(position) }
            if run.isFull { publish(&run) }
            return
        }
        publish(&run)
        switch item {
        case .push:
            break
        case .broadcast(let broadcast):
            deliver(broadcast)
        case .runDue(let time):
            advancing.withLock { _ in catchUp(to: time) }
        }
    }

    // MARK: Time

    /// Runs everything due up to the clock's current time (the real-time ticker calls this).
    /// With queued delivery the tick waits its turn behind the pushes accepted before it.
    public func runDueEvents() {
        if let queue = deliveryQueue.load() {
            _ = queue.appendRunDue(until: clock.now())
            return
        }
        advancing.withLock { _ in catchUp(to: clock.now()) }
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

    func delete(_ deviceID: String) throws(SimulatorError) -> SimulatedDevice {
        settle()
        guard let device = shard(deviceID).withLock({ shard -> SimulatedDevice? in
            guard let device = shard.devices.removeValue(forKey: deviceID) else { return nil }
            shard.dueTimes[deviceID] = nil
            shard.changed.remove(deviceID)
            shard.removed.insert(deviceID)
            return device
        }) else { throw .unknownDevice(deviceID) }
        return device
    }

    /// Every shard in turn; `settling` first delivers what was accepted before the call.
    func forEachShard(settling: Bool = true, _ body: (inout Shard) -> Void) {
        if settling { settle() }
        for shard in shards { shard.withLock { body(&$0) } }
    }

    func newToken() -> String { tokens.withLock { $0.hex(bytes: 32) } }

    /// `device-N`, skipping ids already taken (a scenario may use the same pattern).
    func newDeviceID() -> String {
        while true {
            let id = "device-\(deviceCounter.add(1, ordering: .relaxed).newValue)"
            if device(id) == nil { return id }
        }
    }
}
