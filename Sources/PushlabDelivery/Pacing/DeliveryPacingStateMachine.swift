/// When the delivery worker hands queued pushes to the phones, as one named state machine: each
/// look at the intake is an event, and the answer is what to do (deliver a batch or pause) and
/// whether the senders drain the queue themselves.
///
/// APNs answers before any phone has anything, so under a load test the answers come first:
///
/// - `idle`: the intake is below `BusyHold.busyRate`; the worker delivers as pushes come.
/// - `burst`: the intake is past it; the worker pauses so the CPU goes to answering, until the
///   intake drops, the queue nears capacity, or the burst has been held for `BusyHold.longest`.
/// - `longLoad`: the intake has stayed past it for `longest`: the senders (the event loops)
///   keep the queue down as they go, and the worker stays out of their way. A worker at nice 19
///   holding the queue's lock would only make them wait for it; even one quiet look let it take
///   the lock, and the stalled senders made the intake look quieter still.
/// - `heldByStore`: the store has as much waiting as it may hold; delivering would only add to
///   it, so the worker waits for the store to write.
///
/// Pure: the caller passes the time and what it sees; tested event by event without threads.
public struct DeliveryPacingStateMachine: Sendable {
    public enum State: Sendable, Equatable {
        case idle, burst, longLoad, heldByStore
    }

    public enum Action: Sendable, Equatable {
        /// Deliver a batch now (and sleep until woken if nothing was queued).
        case deliver
        /// Look again after this long, or sooner if woken.
        case pause(Duration)
    }

    /// What one look decided.
    public struct Decision: Sendable, Equatable {
        public var action: Action
        /// The senders drain the queue as they append (a long load).
        public var sendersDrain: Bool

        public init(action: Action, sendersDrain: Bool) {
            self.action = action
            self.sendersDrain = sendersDrain
        }
    }

    /// What the worker sees at a look.
    public struct Look: Sendable {
        /// Every item ever appended to the queue.
        public var arrived: Int64
        /// Items queued now.
        public var queued: Int
        /// The store asked for deliveries to wait (`DeliveryQueue.setHeld`).
        public var storeHolds: Bool
        public var now: ContinuousClock.Instant

        public init(arrived: Int64, queued: Int, storeHolds: Bool, now: ContinuousClock.Instant) {
            self.arrived = arrived
            self.queued = queued
            self.storeHolds = storeHolds
            self.now = now
        }
    }

    public private(set) var state = State.idle
    private var hold: BusyHold
    /// The queue's size: from 7/8 of it a burst is no longer held (at capacity the senders
    /// deliver themselves, which slows them; Benchmarks/results/history.md: starting at half
    /// cost about 3% at 100 x 10).
    public let capacity: Int
    /// How long a paused worker sleeps before it looks at the intake again.
    public let pause: Duration

    public init(capacity: Int, hold: BusyHold = BusyHold(), pause: Duration = .milliseconds(50)) {
        self.capacity = max(1, capacity)
        self.hold = hold
        self.pause = pause
    }

    /// The queue is full enough that a burst must no longer be held.
    func isFilling(_ queued: Int) -> Bool { queued >= capacity - capacity / 8 }

    /// One look: the new state and what to do.
    public mutating func looked(_ look: Look) -> Decision {
        let burstHeld = hold.shouldWait(arrived: look.arrived, filling: isFilling(look.queued), now: look.now)
        let longLoad = hold.isLongLoad
        state =
            if look.storeHolds { .heldByStore }
            else if longLoad { .longLoad }
            else if burstHeld { .burst }
            else { .idle }
        return Decision(action: state == .idle ? .deliver : .pause(pause), sendersDrain: longLoad)
    }
}
