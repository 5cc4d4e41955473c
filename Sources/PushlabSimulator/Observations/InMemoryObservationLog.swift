import PushlabCore
import Synchronization

/// The newest observations in memory (`capacity` of them), for tests and for reading without a
/// store.
///
/// The oldest are dropped in strides of half the capacity, not with every batch: dropping a
/// batch's worth from the front of a full log moves the whole log, and a cluster node, whose
/// every push lands here, spent a fifth of its time doing that.
public final class InMemoryObservationLog: ObservationSink {
    private let entries = Mutex<[Observation]>([])
    public let capacity: Int
    private let slack: Int

    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
        slack = max(1, self.capacity / 2)
    }

    public func record(_ observations: [Observation]) {
        entries.withLock { entries in
            entries += observations
            if entries.count >= capacity + slack { entries.removeFirst(entries.count - capacity) }
        }
    }

    /// Oldest first, after `since` (a sequence number), optionally filtered.
    public func observations(device: String? = nil, since: Int64 = 0, bundleID: String? = nil, kind: ObservationKind? = nil, limit: Int = .max) -> [Observation] {
        let all = entries.withLock { $0.suffix(capacity) }.sorted { $0.sequence < $1.sequence }
        var result: [Observation] = []
        for observation in all where observation.sequence > since
            && (device == nil || observation.deviceID == device)
            && (bundleID == nil || observation.bundleID == bundleID)
            && (kind == nil || observation.kind == kind) {
            result.append(observation)
            if result.count == limit { break }
        }
        return result
    }

    public func removeAll() { entries.withLock { $0 = [] } }

    /// Forgets the observations `matching` accepts.
    public func remove(where matching: (Observation) -> Bool) {
        entries.withLock { $0.removeAll(where: matching) }
    }
}
