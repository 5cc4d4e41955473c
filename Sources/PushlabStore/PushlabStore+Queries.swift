import PushlabCore
import GRDB
import PushlabSimulator

/// Reading what was recorded, for the control API. Queries never need a `flush()`: they merge
/// what is committed with what is still buffered (or being written), so an observation is
/// visible the moment its sink call returns.
extension PushlabStore {
    /// Observations after `since` (a sequence number), oldest first, optionally for one device,
    /// app or kind; at most `limit`.
    public func observations(
        deviceID: String? = nil, since: Int64 = 0, bundleID: String? = nil, kind: ObservationKind? = nil, limit: Int = 100
    ) throws(StoreError) -> [Observation] {
        guard limit > 0 else { return [] }
        let query = ObservationQuery(deviceID: deviceID, since: since, bundleID: bundleID, kind: kind, limit: limit)
        // The buffer before the file: an item committed in between is then seen twice (and
        // kept once) rather than not at all.
        let unwritten = buffer.unwritten.observations.filter(query.matches)
        let saved = try StoreDatabase.read(database, path: path) { db in try query.fetch(in: db) }
        let savedSequences = Set(saved.map(\.sequence))
        let merged = saved + unwritten.filter { !savedSequences.contains($0.sequence) }
        return Array(merged.sorted { $0.sequence < $1.sequence }.prefix(limit))
    }

    /// Requests, newest first, optionally for one device token, status or reason (APNs's text,
    /// e.g. `Unregistered`); at most `limit`.
    public func requests(deviceToken: String? = nil, status: Int? = nil, reason: String? = nil, limit: Int = 100) throws(StoreError) -> [RequestLog.Entry] {
        guard limit > 0 else { return [] }
        let query = RequestQuery(deviceToken: deviceToken, status: status, reason: reason, limit: limit)
        let unwritten = buffer.unwritten.requests.filter(query.matches)
        let saved = try StoreDatabase.read(database, path: path) { db in try query.fetch(in: db) }
        let savedSequences = Set(saved.map(\.sequence))
        let merged = saved + unwritten.filter { !savedSequences.contains($0.sequence) }
        return Array(merged.sorted { $0.sequence > $1.sequence }.prefix(limit))
    }
}
