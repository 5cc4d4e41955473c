import PushlabCore
import PushlabSimulator
import Synchronization

/// What the pipeline has been handed and not yet delivered, in the order it was handed over.
/// APNs answers 200 when it accepts a push and reaches the phone later; the pipeline does the
/// same, so an event loop only appends here and whoever delivers (the worker, or a reader that
/// needs everything up to now) takes items off in order.
///
/// No threads or I/O here: `deliver(limit:)` is called by the worker and the senders,
/// `settle()` by anything that reads or changes the devices.
final class DeliveryQueue: Sendable {
    /// Handed to whoever delivers, for the length of one call: a push is read where it lies in
    /// its read's array (a copy of it retained every string it holds, and its memory was a
    /// tenth of an event loop's delivering).
    enum Item {
        /// With its place in the log (nil without one), and whether it was resumed from the log
        /// after a restart.
        case push(UnsafePointer<AcceptedPush>, LoggedPushPosition?, resumed: Bool)
        case broadcast(LoggedBroadcast)
        /// Run everything due up to this time (a real-time tick while pushes were waiting).
        case runDue(until: EpochMilliseconds)
    }

    /// What one hand-over appended: the pushes of one read are kept as the array they came in,
    /// so an event loop's append moves one reference instead of copying each push.
    private enum Entry {
        case pushes([AcceptedPush], LoggedPositions, resumed: Bool)
        case broadcast(LoggedBroadcast)
        case runDue(until: EpochMilliseconds)
        /// Already handed to whoever delivers: what remains of it in `TakenBatch` until the batch ends.
        case done

        var itemCount: Int {
            switch self {
            case .pushes(let pushes, _, _): pushes.count
            case .broadcast, .runDue: 1
            case .done: 0
            }
        }
    }

    /// Held by whoever delivers, for one bounded batch: entries taken from `incoming` wait here,
    /// ahead of everything appended since.
    private struct TakenBatch {
        var entries: [Entry] = []
        var entry = 0
        /// The next push within `entries[entry]`.
        var offset = 0
        var delivered: Int64 = 0

        var isExhausted: Bool { entry == entries.count }
    }

    let capacity: Int
    /// While draining (a long load, not a burst), the mark past which the sender delivers.
    let drainMark: Int
    private let draining = Atomic<Bool>(false)
    private let held = Atomic<Bool>(false)
    /// Entries handed over and not yet taken by whoever delivers.
    private let incoming = Mutex<[Entry]>([])
    private let taken = Mutex(TakenBatch())
    private let outstanding = Atomic<Int>(0)
    /// Items senders owed while someone else was delivering (`deliverUnlessBusy`).
    private let owed = Atomic<Int>(0)
    /// Of `outstanding`, the ticks: rare (one pending at most), so pushes are counted without a
    /// second atomic per push.
    private let outstandingTicks = Atomic<Int>(0)
    /// Items ever handed over, read without the lock (a worker measures its intake with it).
    private let appended = Atomic<Int64>(0)
    /// Called when the queue stops being empty, so a sleeping worker can be woken.
    private let wake: @Sendable () -> Void
    /// Where every push appended is logged, under the queue's lock, so that the log's order is
    /// the queue's (nil: nothing is logged).
    let log: (any AcceptedPushLog)?
    /// The log is also a sink, and hears of takings with the observations (the store); any other
    /// log is told apart. Found once here, not by a cast every run.
    let logHearsTakingsAsSink: Bool

    init(capacity: Int, log: (any AcceptedPushLog)? = nil, wake: @escaping @Sendable () -> Void) {
        self.capacity = max(1, capacity)
        drainMark = max(1, self.capacity / 64)
        self.log = log
        logHearsTakingsAsSink = log is any ObservationSink
        self.wake = wake
    }

    /// Pushes handed over and not yet delivered (a pending tick is no push).
    var count: Int { max(0, outstanding.load(ordering: .relaxed) - outstandingTicks.load(ordering: .relaxed)) }

    /// Items handed over since the queue was made.
    var appendedCount: Int64 { appended.load(ordering: .relaxed) }

    /// Whether the sender drains the queue (`setDraining`).
    var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// A load that outlasts a burst: the queue, which exists to absorb bursts, is brought down to
    /// `drainMark` by the senders, so that the phones keep pace with the answers and little is
    /// left when the load stops. Off again when the load stops.
    func setDraining(_ on: Bool) {
        if draining.load(ordering: .relaxed) != on { draining.store(on, ordering: .relaxed) }
    }

    /// Whether a sink asked for deliveries to wait (`setHeld`).
    var isHeld: Bool { held.load(ordering: .relaxed) }

    /// A sink that cannot keep up (the store, with as much waiting as it may hold) holds the
    /// deliveries that only keep the queue short: the worker's and the draining senders'. What
    /// the queue must deliver at capacity, and whatever a reader settles, still goes.
    func setHeld(_ on: Bool) {
        if held.load(ordering: .relaxed) != on { held.store(on, ordering: .relaxed) }
    }

    /// While a long load is draining the queue, a sink holds it and more than twice `drainMark`
    /// waits: the phones cannot catch up while the answers run at full speed (the sink, not the
    /// senders, is what is slow), so the senders should take in less until the sink lets the
    /// queue go again. Without it a long load ends with hundreds of thousands of pushes queued
    /// (Benchmarks/results/2026-11-28-string-tables.md: 187,022 left, a 2.8 s catch-up).
    var isBackedUp: Bool {
        isDraining && isHeld && count > 2 * drainMark
    }

    /// What a sender owes the queue after appending to it.
    enum SenderDuty {
        case none
        /// Past `drainMark` while draining: deliver a batch, or, if another sender is delivering
        /// already, owe it to that one and go on answering rather than spin on the lock for the
        /// length of the other's batch (`deliverUnlessBusy`).
        case deliverUnlessBusy
        /// At capacity: deliver a batch, waiting for the other sender if need be, so that a
        /// sustained overload slows the senders instead of growing memory.
        case deliver
    }

    /// Appends `pushes` in order under one lock, waking the worker at most once, and says
    /// whether the caller should deliver a batch itself before going on.
    func append(pushes: [AcceptedPush]) -> SenderDuty {
        guard !pushes.isEmpty else { return .none }
        return append(.pushes(pushes, .none, resumed: false))
    }

    /// Appends pushes already in a log, at the places they have in it: kept from before a
    /// restart (`resumed`), or read from a cluster's engine. They are not logged again.
    func append(logged: [LoggedPush], resumed: Bool) -> SenderDuty {
        guard !logged.isEmpty else { return .none }
        return append(.pushes(logged.map(\.push), LoggedPositions(logged.map(\.position)), resumed: resumed))
    }

    /// Appends a broadcast, in order with the pushes around it.
    func append(broadcast: LoggedBroadcast) -> SenderDuty {
        append(.broadcast(broadcast))
    }

    /// Appends a tick; one pending tick is enough, the later time covering the earlier.
    func appendRunDue(until time: EpochMilliseconds) -> SenderDuty {
        append(.runDue(until: time))
    }

    private func append(_ entry: Entry) -> SenderDuty {
        let (wasEmpty, queued) = incoming.withLock { entries -> (Bool, Int) in
            if case .runDue = entry, case .runDue? = entries.last {
                entries[entries.count - 1] = entry
                return (false, 0)
            }
            let added = entry.itemCount
            if case .runDue = entry { outstandingTicks.add(1, ordering: .relaxed) }
            if case .pushes(let pushes, let positions, false) = entry, positions.isEmpty, let log {
                entries.append(.pushes(pushes, log.append(pushes), resumed: false))
            } else {
                entries.append(entry)
            }
            // Inside the lock: whoever reads the count next finds these entries queued.
            appended.add(Int64(added), ordering: .relaxed)
            let before = outstanding.add(added, ordering: .relaxed).oldValue
            return (before == 0, before + added)
        }
        if wasEmpty { wake() }
        if queued > capacity { return .deliver }
        return isDraining && !isHeld && queued > drainMark ? .deliverUnlessBusy : .none
    }

    /// Delivers up to `limit` items in order through `body`, then calls `finish` before the next
    /// deliverer may start (so what it publishes stays in order); returns how many it delivered.
    ///
    /// `unlessBusy`: if someone else is delivering, returns 0 at once and the batch is owed:
    /// whoever holds the lock delivers it too before letting go. Waiting for the lock spun in the
    /// kernel for as long as the other's batch took (the lock is a priority-inheriting futex):
    /// about 5% of an event loop's time under a long load. Owing the batch rather than dropping
    /// it keeps the phones at the pace of both senders.
    func deliver(limit: Int, unlessBusy: Bool = false, _ body: (Item) -> Void, finish: () -> Void) -> Int {
        guard unlessBusy else {
            return taken.withLock { taken in deliverOwing(&taken, limit: limit, body, finish: finish) }
        }
        if let delivered = taken.withLockIfAvailable({ taken in deliverOwing(&taken, limit: limit, body, finish: finish) }) {
            return delivered
        }
        owed.add(limit, ordering: .relaxed)
        return 0
    }

    /// `limit` items, then what senders that found the lock taken owe, until nothing is owed or
    /// nothing is left, then `finish`. A batch owed just after the last look waits for the next
    /// deliverer.
    private func deliverOwing(_ taken: inout TakenBatch, limit: Int, _ body: (Item) -> Void, finish: () -> Void) -> Int {
        defer { finish() }
        var count = deliver(&taken, limit: limit, body)
        while owed.load(ordering: .relaxed) > 0 {
            let more = owed.exchange(0, ordering: .relaxed)
            let done = deliver(&taken, limit: more, body)
            count += done
            if done < more { break }
        }
        return count
    }

    /// Delivers everything appended before the call (and maybe a little more), then calls
    /// `finish` as `deliver` does.
    func settle(_ body: (Item) -> Void, finish: () -> Void) {
        let target = incoming.withLock { _ in appended.load(ordering: .relaxed) }
        taken.withLock { taken in
            defer { finish() }
            while taken.delivered < target, deliver(&taken, limit: 256, body) > 0 {}
        }
    }

    private func deliver(_ taken: inout TakenBatch, limit: Int, _ body: (Item) -> Void) -> Int {
        if taken.isExhausted {
            // A burst's buffer is not kept: after a load test the queue goes back to small.
            taken.entries.removeAll(keepingCapacity: taken.entries.count <= 4096)
            taken.entry = 0
            taken.offset = 0
            incoming.withLock { swap(&$0, &taken.entries) }
        }
        var count = 0
        while count < limit, !taken.isExhausted {
            let item: Item
            switch taken.entries[taken.entry] {
            case .pushes(let pushes, let positions, let resumed):
                let start = taken.offset
                let end = min(pushes.count, start + limit - count)
                let logged = !positions.isEmpty
                pushes.withUnsafeBufferPointer { pushes in
                    for index in start..<end {
                        taken.delivered += 1
                        outstanding.subtract(1, ordering: .relaxed)
                        body(.push(pushes.baseAddress! + index, logged ? positions[index] : nil, resumed: resumed))
                    }
                }
                count += end - start
                taken.offset = end
                if end == pushes.count { finishEntry(&taken) }
                continue
            case .broadcast(let broadcast):
                item = .broadcast(broadcast)
                finishEntry(&taken)
            case .runDue(let time):
                item = .runDue(until: time)
                outstandingTicks.subtract(1, ordering: .relaxed)
                finishEntry(&taken)
            case .done:
                // Never ahead of `taken.entry`: finishing an entry moves past it.
                finishEntry(&taken)
                continue
            }
            count += 1
            taken.delivered += 1
            outstanding.subtract(1, ordering: .relaxed)
            body(item)
        }
        return count
    }

    /// Moves past the current entry and lets its pushes go: a delivered read's payloads are
    /// freed as the worker goes, not when the whole burst is done.
    private func finishEntry(_ taken: inout TakenBatch) {
        taken.entries[taken.entry] = .done
        taken.entry += 1
        taken.offset = 0
    }
}
