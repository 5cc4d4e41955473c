import PushlabCore
import PushlabSimulator
import Synchronization

/// The way from an accepted push to its phone: the transport's `PushSink`. Until
/// `queueDeliveries` it hands every push to the simulator at once, on the event loop. Queued
/// (as `pushlab serve` runs), it logs each push (`AcceptedPushLog`), keeps it in a
/// `DeliveryQueue` for the worker, and marks it taken once its phone took it; every read or
/// change of the devices first delivers what was accepted before it (the simulator's settle
/// hook), so callers see the same results either way.
///
/// The pacing decisions come from the worker's `DeliveryPacingStateMachine` and from the sink
/// that heeds a backlog (`heed`); this class carries them out.
public final class DeliveryPipeline: PushSink, Sendable {
    public let simulator: DeviceSimulator
    private let queue = AtomicLazyReference<DeliveryQueue>()

    public init(simulator: DeviceSimulator) {
        self.simulator = simulator
    }

    // MARK: PushSink

    public var needsPayload: Bool { simulator.needsPayload }

    public func takesPushes(toDevice deviceID: String?) -> Bool { simulator.takesPushes(toDevice: deviceID) }

    public func accept(_ push: AcceptedPush) {
        accept([push])
    }

    /// One hand-over (one lock, at most one wake-up) for all the pushes of one read.
    public func accept(_ pushes: [AcceptedPush]) {
        guard let queue = queue.load() else { return simulator.accept(pushes) }
        // Draining, twice what came in, so the queue shrinks by one read's pushes each read;
        // held, a full queue only stays where it is.
        deliver(owing: queue.append(pushes: pushes), to: queue, limit: max(64, pushes.count * (queue.isDraining && !queue.isHeld ? 2 : 1)))
    }

    /// A broadcast waits its turn with the pushes around it.
    public func accept(broadcast: AcceptedBroadcast) {
        accept(LoggedBroadcast(broadcast))
    }

    /// A broadcast of a log (a cluster's engine) to the phones it names, taken at its position
    /// once it ran.
    public func accept(_ broadcast: LoggedBroadcast) {
        guard let queue = queue.load() else {
            var run = ObservationRun()
            return deliverNow(broadcast, into: &run)
        }
        deliver(owing: queue.append(broadcast: broadcast), to: queue, limit: 64)
    }

    /// The one gate the transport asks (on every read of every connection): a long load is
    /// draining the queue, a sink holds it, and more than twice the drain mark waits
    /// (`DeliveryQueue.isBackedUp`). The transport then reads more slowly until the phones
    /// catch up.
    public var isBackedUp: Bool { queue.load()?.isBackedUp ?? false }

    // MARK: Queueing

    /// From now on accepted pushes wait in a queue of at most `capacity` (beyond it, the sender
    /// delivers a batch itself) until the worker or a read takes them. `wake` is called when the
    /// queue stops being empty. Only the first call counts; false for a later one.
    ///
    /// `log`: every push appended is logged there first, in the queue's order, and marked taken
    /// once its phone has taken it; a log that is also an `ObservationSink` must be one of the
    /// simulator's sinks, and hears of it with the observations.
    @discardableResult
    public func queueDeliveries(capacity: Int, log: (any AcceptedPushLog)? = nil, wake: @escaping @Sendable () -> Void) -> Bool {
        let made = DeliveryQueue(capacity: capacity, log: log, wake: wake)
        guard queue.storeIfNil(made) === made else { return false }
        simulator.installSettleHook { [weak self] in self?.settle() }
        return true
    }

    /// Hands the pushes a log kept from before a restart to their phones, in order, ahead of
    /// anything accepted since (call it before the listeners start). Each observation they cause
    /// says `afterRestart`; their positions are marked taken as usual. Without a queue they are
    /// delivered now.
    public func resume(_ logged: [LoggedPush]) {
        deliver(logged: logged, resumed: true)
    }

    /// Hands pushes a log holds to their phones, in order after everything handed over before,
    /// and takes each at its position once its phone has (a cluster node's reads of the engine;
    /// `resumed`: kept from before a restart or from a node that died). Without a queue they
    /// are delivered now.
    public func deliver(logged: [LoggedPush], resumed: Bool) {
        guard !logged.isEmpty else { return }
        guard let queue = queue.load() else {
            var run = ObservationRun(pushes: logged.count)
            logged.withUnsafeBufferPointer { logged in
                for index in logged.indices {
                    withUnsafePointer(to: logged[index].push) { push in simulator.deliver(push, resumed: resumed, into: &run) }
                    run.took(logged[index].position)
                    if run.isFull { simulator.publish(&run) }
                }
            }
            simulator.publish(&run)
            return
        }
        deliver(owing: queue.append(logged: logged, resumed: resumed), to: queue, limit: max(64, logged.count))
    }

    /// Delivers up to `limit` queued pushes and ticks, oldest first; how many it delivered.
    public func deliverQueued(limit: Int) -> Int {
        guard let queue = queue.load() else { return 0 }
        return deliver(from: queue, limit: limit, unlessBusy: false)
    }

    /// Delivers everything accepted before the call.
    public func settle() {
        guard let queue = queue.load() else { return }
        var run = ObservationRun()
        queue.settle({ item in deliver(item, from: queue, into: &run) }, finish: { publish(&run, from: queue) })
    }

    /// Runs everything due up to the clock's time now (the real-time ticker): queued, the tick
    /// waits its turn behind the pushes accepted before it.
    public func runDueEvents() {
        guard let queue = queue.load() else { return simulator.runDueEvents() }
        _ = queue.appendRunDue(until: simulator.clock.now())
    }

    // MARK: Pacing

    /// While a load outlasts a burst (`DeliveryPacingStateMachine.Decision.sendersDrain`), the
    /// senders bring the queue down to a 64th of its capacity and keep it there: the phones keep
    /// pace with the answers, so that little waits when the load stops. Off when it stops.
    public func drain(_ on: Bool) {
        queue.load()?.setDraining(on)
    }

    /// While on, queued pushes wait for a reader or for the queue's capacity: a sink that cannot
    /// keep up holds the phones back rather than lose what they observe. Off lets the worker and
    /// the draining senders go on.
    public func hold(_ on: Bool) {
        queue.load()?.setHeld(on)
    }

    /// A sink holds the queued pushes (`hold`).
    public var isHeld: Bool { queue.load()?.isHeld ?? false }

    /// Holds the queue while `backlog` reports one; calling the result stops heeding it.
    public func heed(_ backlog: some DeliveryBacklog) -> @Sendable () -> Void {
        backlog.reportBacklog { [weak self] backedUp in self?.hold(backedUp) }
        return { [weak self] in
            backlog.reportBacklog(to: nil)
            self?.hold(false)
        }
    }

    /// Pushes accepted and not yet delivered.
    public var queuedDeliveries: Int { queue.load()?.count ?? 0 }

    /// Pushes and ticks queued since `queueDeliveries`, delivered or not (the intake the worker
    /// measures).
    public var totalQueuedDeliveries: Int64 { queue.load()?.appendedCount ?? 0 }

    // MARK: Delivering

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

    @discardableResult
    private func deliver(from queue: DeliveryQueue, limit: Int, unlessBusy: Bool) -> Int {
        var run = ObservationRun(pushes: limit)
        return queue.deliver(
            limit: limit, unlessBusy: unlessBusy, { item in deliver(item, from: queue, into: &run) }, finish: { publish(&run, from: queue) }
        )
    }

    /// A push joins the run; anything else first publishes the run, so that the sinks see every
    /// observation in the order it was made.
    private func deliver(_ item: DeliveryQueue.Item, from queue: DeliveryQueue, into run: inout ObservationRun) {
        if case .push(let push, let position, let resumed) = item {
            simulator.deliver(push, resumed: resumed, into: &run)
            if let position { run.took(position) }
            if run.isFull { publish(&run, from: queue) }
            return
        }
        publish(&run, from: queue)
        switch item {
        case .push:
            break
        case .broadcast(let broadcast):
            deliverNow(broadcast, into: &run)
        case .runDue(let time):
            simulator.runDue(until: time)
        }
    }

    /// The broadcast runs (its observations are published as it goes); its position joins `run`,
    /// to be taken with whatever the run publishes next.
    private func deliverNow(_ broadcast: LoggedBroadcast, into run: inout ObservationRun) {
        if let devices = broadcast.devices {
            simulator.accept(broadcast: broadcast.broadcast, toDevices: devices)
        } else {
            simulator.accept(broadcast: broadcast.broadcast)
        }
        guard let position = broadcast.position else { return }
        run.took(position)
        if queue.load() == nil { simulator.publish(&run) }
    }

    /// The run's observations go to the sinks with the positions its pushes took; a log that
    /// is also a sink (the store) commits both together, any other log is told afterwards.
    private func publish(_ run: inout ObservationRun, from queue: DeliveryQueue) {
        let taking = simulator.publish(&run)
        guard !taking.isEmpty, let log = queue.log, !queue.logHearsTakingsAsSink else { return }
        for position in taking { log.markTaken(through: position) }
    }
}
