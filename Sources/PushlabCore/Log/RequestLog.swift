import Synchronization

/// Every request, accepted or rejected, in a bounded ring (oldest dropped first).
public final class RequestLog: Sendable {
    public struct Entry: Sendable, Equatable {
        public var sequence: Int64
        public var time: EpochMilliseconds
        public var connectionID: UInt64
        public var environment: APNsEnvironment
        public var deviceToken: String?
        public var topic: String?
        public var pushType: String?
        public var status: Int
        public var reason: APNsErrorReason?
        public var apnsID: String
    }

    private struct Ring {
        var entries: [Entry] = []
        var next = 0
        var sequence: Int64 = 0
    }

    public let capacity: Int
    private let ring = Mutex(Ring())
    private let observers = Mutex<[@Sendable (Entry) -> Void]>([])
    /// Lets `append` skip the observers' lock in the common case of none.
    private let hasObservers = Atomic<Bool>(false)

    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    func append(_ make: (Int64) -> Entry) {
        let entry: Entry = ring.withLock { ring in
            ring.sequence += 1
            let entry = make(ring.sequence)
            if ring.entries.count < capacity {
                ring.entries.append(entry)
            } else {
                ring.entries[ring.next] = entry
                ring.next = (ring.next + 1) % capacity
            }
            return entry
        }
        guard hasObservers.load(ordering: .acquiring) else { return }
        for observer in observers.withLock({ $0 }) { observer(entry) }
    }

    /// Newest first, optionally filtered.
    public func entries(limit: Int = 100, where include: (Entry) -> Bool = { _ in true }) -> [Entry] {
        let ordered = ring.withLock { ring in Array(ring.entries[ring.next...] + ring.entries[..<ring.next]) }
        var result: [Entry] = []
        for entry in ordered.reversed() where include(entry) {
            result.append(entry)
            if result.count == limit { break }
        }
        return result
    }

    public var count: Int { ring.withLock { $0.entries.count } }

    /// Called for every new entry (the control API's event stream, the store).
    public func observe(_ observer: @escaping @Sendable (Entry) -> Void) {
        observers.withLock { $0.append(observer) }
        hasObservers.store(true, ordering: .releasing)
    }

    public func removeAll() { ring.withLock { $0 = Ring() } }
}
