import PushlabCore
import Synchronization

/// What the simulator has been handed and not yet acted on, in the order it was handed over.
/// APNs answers 200 when it accepts a push and reaches the phone later; a queued simulator does
/// the same, so an event loop only appends here and whoever delivers (a background worker, or a
/// reader that needs everything up to now) takes items off in order.
///
/// No threads or I/O here: `deliver(limit:)` is called by the adapter's worker, `settle()` by
/// anything that reads or changes the devices.
final class DeliveryQueue: Sendable {
    enum Item: Sendable {
        case push(AcceptedPush)
        /// Run everything due up to this time (a real-time tick while pushes were waiting).
        case runDue(until: EpochMilliseconds)
    }

    private struct Incoming {
        var items: [Item] = []
        var appended: Int64 = 0
    }

    /// Held by whoever delivers, for one bounded batch: items taken from `incoming` wait here,
    /// ahead of everything appended since.
    private struct Taken {
        var items: [Item] = []
        var position = 0
        var delivered: Int64 = 0
    }

    let capacity: Int
    private let incoming = Mutex(Incoming())
    private let taken = Mutex(Taken())
    private let outstanding = Atomic<Int>(0)
    /// Called when the queue stops being empty, so a sleeping worker can be woken.
    private let wake: @Sendable () -> Void

    init(capacity: Int, wake: @escaping @Sendable () -> Void) {
        self.capacity = max(1, capacity)
        self.wake = wake
    }

    /// Items handed over and not yet delivered.
    var count: Int { outstanding.load(ordering: .relaxed) }

    /// Appends `item`; true when the queue is at capacity and the caller should deliver a batch
    /// itself before going on (so a sustained overload slows the sender instead of growing memory).
    func append(_ item: Item) -> Bool {
        append([item])
    }

    /// Appends `items` in order under one lock, waking the worker at most once.
    func append(_ items: [Item]) -> Bool {
        guard !items.isEmpty else { return false }
        let (wasEmpty, queued) = incoming.withLock { incoming -> (Bool, Int) in
            var added = 0
            for item in items {
                // One pending tick is enough: the later time covers the earlier.
                if case .runDue = item, case .runDue? = incoming.items.last {
                    incoming.items[incoming.items.count - 1] = item
                    continue
                }
                incoming.items.append(item)
                added += 1
            }
            guard added > 0 else { return (false, 0) }
            incoming.appended += Int64(added)
            let before = outstanding.add(added, ordering: .relaxed).oldValue
            return (before == 0, before + added)
        }
        if wasEmpty { wake() }
        return queued > capacity
    }

    /// Delivers up to `limit` items in order through `body`; returns how many it delivered.
    func deliver(limit: Int, _ body: (Item) -> Void) -> Int {
        taken.withLock { taken in deliver(&taken, limit: limit, body) }
    }

    /// Delivers everything appended before the call (and maybe a little more).
    func settle(_ body: (Item) -> Void) {
        let target = incoming.withLock { $0.appended }
        taken.withLock { taken in
            while taken.delivered < target, deliver(&taken, limit: 256, body) > 0 {}
        }
    }

    private func deliver(_ taken: inout Taken, limit: Int, _ body: (Item) -> Void) -> Int {
        if taken.position == taken.items.count {
            // A burst's buffer is not kept: after a load test the queue goes back to small.
            taken.items.removeAll(keepingCapacity: taken.items.count <= 4096)
            taken.position = 0
            incoming.withLock { swap(&$0.items, &taken.items) }
        }
        let end = min(taken.items.count, taken.position + limit)
        let count = end - taken.position
        while taken.position < end {
            let item = taken.items[taken.position]
            taken.position += 1
            taken.delivered += 1
            outstanding.subtract(1, ordering: .relaxed)
            body(item)
        }
        return count
    }
}
