import Synchronization

/// Every request, accepted or rejected, in a bounded ring (oldest dropped first).
public final class RequestLog: Sendable {
    public struct Entry: Sendable, Equatable {
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
            topic: String?, pushType: String?, status: Int, reason: APNsErrorReason?, apnsID: APNsID
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
        }

        public var apnsID: String {
            get { apnsIDValue.text }
            set { apnsIDValue = APNsID(newValue) }
        }

        /// Lower-case hex, as the request carried it.
        public var deviceToken: String? {
            get { deviceTokenKey?.hex }
            set { deviceTokenKey = newValue.map(DeviceTokenKey.init) }
        }

        /// The same entry numbered after `base`: a store's numbering goes on across runs, while
        /// the log starts again at 1 in every process.
        public func renumbered(after base: Int64) -> Entry {
            var entry = self
            entry.sequence += base
            return entry
        }
    }

    private struct Ring {
        var entries: [Entry] = []
        var next = 0
        /// Each shard holds its own copy, so recording takes one shard's lock and no lock that
        /// every event loop shares.
        var observers: [@Sendable (Entry) -> Void] = []
    }

    /// Each connection writes to one shard (by connection id), so event loops rarely contend;
    /// the sequence number is global, and reads merge the shards by it.
    public let capacity: Int
    private let shards: [LockedShard<Ring>]
    private let sequence = Atomic<Int64>(0)
    /// Lets `append` skip the observers' lock in the common case of none.
    private let hasObservers = Atomic<Bool>(false)

    public init(capacity: Int = 10_000, shards: Int = 4) {
        self.capacity = max(1, capacity)
        self.shards = (0..<max(1, shards)).map { _ in LockedShard(Ring()) }
    }

    func append(_ entry: consuming Entry, connectionID: UInt64) {
        var entry = entry
        entry.sequence = sequence.add(1, ordering: .relaxed).newValue
        // Only copied out when someone listens: the common case moves the entry into the ring.
        let observed = hasObservers.load(ordering: .acquiring) ? entry : nil
        let shard = shards[Int(connectionID % UInt64(shards.count))]
        let observers = shard.withLock { ring in
            if ring.entries.count < capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.next] = entry
                ring.next = (ring.next + 1) % capacity
            }
            return observed == nil ? [] : ring.observers
        }
        guard let observed else { return }
        for observer in observers { observer(observed) }
    }

    /// Newest first, optionally filtered; at most `capacity` of the newest entries are kept.
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

    /// Called for every new entry (the control API's event stream, the store).
    public func observe(_ observer: @escaping @Sendable (Entry) -> Void) {
        for shard in shards { shard.withLock { $0.observers.append(observer) } }
        hasObservers.store(true, ordering: .releasing)
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
