import Synchronization

/// Every request, accepted or rejected, in a bounded ring (oldest dropped first).
public final class RequestLog: Sendable {
    public struct Entry: Sendable, Equatable, CarriesAPNsID {
        public var sequence: Int64
        public var time: EpochMilliseconds
        public var connectionID: UInt64
        public var environment: APNsEnvironment
        /// Packed: the token's text is only made when someone reads it, off the event loop.
        public var deviceTokenKey: DeviceTokenKey?
        public var topic: String?
        public var pushType: String?
        public var status: Int
        public var reason: APNsErrorReason?
        /// Packed, as the answer carried it: its text is only made when someone reads it.
        public var apnsIDValue: APNsID
        /// The broadcast channel a broadcast or channel management request named (or a create
        /// made); nil for device pushes. A broadcast also has push type `liveactivity`, a channel
        /// management request none; neither has a device token, and the topic is the bundle id.
        public var channelID: String?

        public init(
            sequence: Int64, time: EpochMilliseconds, connectionID: UInt64, environment: APNsEnvironment,
            deviceToken: String?, topic: String?, pushType: String?, status: Int, reason: APNsErrorReason?, apnsID: String
        ) {
            self.init(
                sequence: sequence, time: time, connectionID: connectionID, environment: environment,
                deviceTokenKey: deviceToken.map(DeviceTokenKey.init), topic: topic, pushType: pushType, status: status,
                reason: reason, apnsID: APNsID(apnsID)
            )
        }

        /// With the token and the id already packed (the connection's answer, a saved chunk).
        public init(
            sequence: Int64 = 0, time: EpochMilliseconds, connectionID: UInt64, environment: APNsEnvironment, deviceTokenKey: DeviceTokenKey?,
            topic: String?, pushType: String?, status: Int, reason: APNsErrorReason?, apnsID: APNsID, channelID: String? = nil
        ) {
            self.sequence = sequence
            self.time = time
            self.connectionID = connectionID
            self.environment = environment
            self.deviceTokenKey = deviceTokenKey
            self.topic = topic
            self.pushType = pushType
            self.status = status
            self.reason = reason
            self.apnsIDValue = apnsID
            self.channelID = channelID
        }

        /// Lower-case hex, as the request carried it.
        public var deviceToken: String? {
            get { deviceTokenKey?.hex }
            set { deviceTokenKey = newValue.map(DeviceTokenKey.init) }
        }
    }

    private struct Ring {
        var entries: [Entry] = []
        var next = 0
        /// Each shard holds its own copy, so recording takes one shard's lock and no lock that
        /// every event loop shares.
        var observers: [(id: Int, observer: @Sendable ([Entry]) -> Void)] = []

        mutating func insert(_ entry: Entry, capacity: Int) {
            if entries.count < capacity {
                entries.append(entry)
            } else {
                entries[next] = entry
                next = (next + 1) % capacity
            }
        }
    }

    /// Each connection writes to one shard (by connection id), so event loops rarely contend;
    /// the sequence number is global, and reads merge the shards by it.
    public var capacity: Int { keptPerShard.load(ordering: .relaxed) }
    private let keptPerShard: Atomic<Int>
    private let shards: [LockedShard<Ring>]
    private let sequence = Atomic<Int64>(0)
    private let nextObserverID = Atomic<Int>(1)

    public init(capacity: Int = 10_000, shards: Int = 4) {
        keptPerShard = Atomic(max(0, capacity))
        self.shards = (0..<max(1, shards)).map { _ in LockedShard(Ring()) }
    }

    /// Numbers new entries on after `last` (a store's last saved request), unless they are
    /// numbered past it already.
    public func resumeSequence(after last: Int64) {
        var current = sequence.load(ordering: .relaxed)
        while current < last {
            let (exchanged, original) = sequence.compareExchange(expected: current, desired: last, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Numbers `entries` in order, keeps them, and hands them to the observers as one batch: a
    /// connection publishes what one read answered with one lock and one call per observer.
    /// `entries` is left empty, with room for a batch like this one.
    func append(contentsOf entries: inout [Entry], connectionID: UInt64) {
        guard !entries.isEmpty else { return }
        let last = sequence.add(Int64(entries.count), ordering: .relaxed).newValue
        let first = last - Int64(entries.count) + 1
        for index in entries.indices { entries[index].sequence = first + Int64(index) }
        let shard = shards[Int(connectionID % UInt64(shards.count))]
        let kept = capacity
        let observers = shard.withLock { ring in
            if kept > 0 { for entry in entries { ring.insert(entry, capacity: kept) } }
            return ring.observers
        }
        for entry in observers { entry.observer(entries) }
        entries.startNextBatch()
    }

    /// Newest first, optionally filtered; at most `capacity` of the newest entries are kept (none
    /// after `keepNone()`).
    public func entries(limit: Int = 100, where include: (Entry) -> Bool = { _ in true }) -> [Entry] {
        var all: [Entry] = []
        for shard in shards { all += shard.withLock { $0.entries } }
        all.sort { $0.sequence > $1.sequence }
        var result: [Entry] = []
        for entry in all.prefix(capacity) where include(entry) {
            result.append(entry)
            if result.count == limit { break }
        }
        return result
    }

    public var count: Int { min(capacity, shards.reduce(0) { $0 + $1.withLock { $0.entries.count } }) }

    /// Called with every batch of new entries, oldest first (the control API's event stream
    /// and metrics, the store).
    /// The id takes the observer off again (`removeObserver`).
    @discardableResult
    public func observe(_ observer: @escaping @Sendable ([Entry]) -> Void) -> Int {
        let id = nextObserverID.add(1, ordering: .relaxed).oldValue
        for shard in shards { shard.withLock { $0.observers.append((id, observer)) } }
        return id
    }

    /// Stops calling the observer `observe` returned `id` for.
    public func removeObserver(_ id: Int) {
        for shard in shards { shard.withLock { $0.observers.removeAll { $0.id == id } } }
    }

    /// From now on only the observers see new entries, and `entries` is empty: for a server
    /// whose store keeps every request, the ring would be a second copy nobody reads.
    public func keepNone() {
        keptPerShard.store(0, ordering: .relaxed)
        removeAll()
    }

    public func removeAll() {
        for shard in shards {
            shard.withLock { ring in
                ring.entries = []
                ring.next = 0
            }
        }
    }
}

extension Array {
    /// Empties an array whose contents were just handed on, with room for as many again.
    /// `removeAll(keepingCapacity: true)` would allocate the whole capacity anew when the
    /// receiver still holds the old buffer (the store does, until it writes): after one large
    /// batch, every later read would grow the heap by that much, page faults and all.
    mutating func startNextBatch() {
        let handedOn = count
        self = []
        reserveCapacity(handedOn)
    }
}
