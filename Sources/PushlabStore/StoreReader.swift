import PushlabCore
import Foundation
import GRDB
import PushlabSimulator

/// Reads a store file another process (a running `pushlab serve`) is writing: read-only, no
/// writer thread, no simulator. WAL lets it read while batches commit; it sees committed
/// batches only.
public struct StoreReader: Sendable {
    public let path: String
    private let database: DatabasePool

    public init(path: String) throws(StoreError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.cannotOpen, "Cannot open store \(path): no such file (pushlab serve --db \(path) creates it)")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "PushlabStoreReader"
        configuration.busyMode = .timeout(StoreDatabase.busyTimeout)
        let (isStore, isCurrent): (Bool, Bool)
        do {
            database = try DatabasePool(path: path, configuration: configuration)
            (isStore, isCurrent) = try database.read { db in
                let current = try db.tableExists("observationChunks")
                return (try current || db.tableExists("observations"), current)
            }
        } catch {
            throw .cannotOpen(path, error)
        }
        guard isStore else { throw StoreError(.cannotOpen, "Cannot open store \(path): it is not a Pushlab store") }
        // A reader cannot bring a file up to date (it opens it read-only); a server can.
        guard isCurrent else {
            throw StoreError(.cannotOpen, "Cannot read store \(path): an older Pushlab wrote it; open it once with pushlab serve --db \(path) to bring it up to date")
        }
        self.path = path
    }

    /// As `PushlabStore.observations`, committed rows only.
    public func observations(deviceID: String? = nil, since: Int64 = 0, bundleID: String? = nil, kind: ObservationKind? = nil, limit: Int = 100) throws(StoreError) -> [Observation] {
        guard limit > 0 else { return [] }
        let query = ObservationQuery(deviceID: deviceID, since: since, bundleID: bundleID, kind: kind, limit: limit)
        return try StoreDatabase.read(database, path: path) { db in try query.fetch(in: db) }
    }

    /// As `PushlabStore.requests`, committed rows only.
    public func requests(deviceToken: String? = nil, status: Int? = nil, reason: String? = nil, limit: Int = 100) throws(StoreError) -> [RequestLog.Entry] {
        guard limit > 0 else { return [] }
        let query = RequestQuery(deviceToken: deviceToken, status: status, reason: reason, limit: limit)
        return try StoreDatabase.read(database, path: path) { db in try query.fetch(in: db) }
    }
}
