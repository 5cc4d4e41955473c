import Foundation
import GRDB
import PushlabCore
import PushlabSimulator

/// Notification Center entries, kept up to date from the `notificationCenter` observations
/// (an `added` one carries the entry, a `removed` one its time) rather than from device
/// snapshots.
///
/// A row is keyed by when its entry was delivered and a hash of whose entry it is: new entries
/// go at the end of the table and the oldest are found at its start, without an index by
/// device. It holds the entry's own fields; its content is a row of `notificationContents`,
/// counted by the entries that use it and deleted with the last: a load test's entries (or a
/// broadcast's) all use one. Rows written before contents were shared hold the content in their
/// entry and no content id.
enum NotificationCenterRows {
    /// `observations` in sequence order: an entry added and then removed ends up removed.
    static func apply(_ observations: BatchItems<Observation>, contents: inout ContentIDs, into db: Database) throws {
        let statements = try Statements(db)
        try observations.forEach(in: observations.indices) { observation in try apply(observation, statements, contents: &contents, in: db) }
        try contents.settle(in: db)
    }

    /// Prepared once a batch: looking a statement up by its text hashed the text every time.
    private struct Statements {
        let insert: Statement
        let deleteByKey: Statement
        let deleteByIdentifier: Statement

        init(_ db: Database) throws {
            insert = try db.cachedStatement(sql: """
                INSERT INTO notificationEntries (deliveredAt, entryKey, sequence, deviceId, bundleId, identifier, entry, contentId)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            deleteByKey = try db.cachedStatement(sql: "DELETE FROM notificationEntries WHERE deliveredAt = ? AND entryKey = ? RETURNING contentId")
            deleteByIdentifier = try db.cachedStatement(sql: """
                DELETE FROM notificationEntries WHERE deviceId = ? AND bundleId = ? AND identifier = ? RETURNING contentId
                """)
        }
    }

    /// What the `entry` column holds: the entry's fields as JSON, or nothing for the usual
    /// remote notification (not local, no collapse id, triggered by a push), whose fields are
    /// the row's identifier and time.
    static func storedFields(of entry: DeliveredNotification) -> String {
        entry.isLocal || entry.collapseID != nil || entry.trigger != usualTrigger ? entry.fieldsText : ""
    }

    static let usualTrigger = "push"

    private static func apply(_ observation: UnsafePointer<Observation>, _ statements: Statements, contents: inout ContentIDs, in db: Database) throws {
        // The kind first: matching the case copies the event out, and most observations are not
        // Notification Center changes.
        guard observation.pointee.kind == .notificationCenter,
              case .notificationCenter(let change, _, let entry) = observation.pointee.event, let identifier = observation.pointee.notificationID
        else { return }
        let key = entryKey(deviceID: observation.pointee.deviceID, bundleID: observation.pointee.bundleID, identifier: identifier)
        switch (change, entry) {
        case (.added, let entry?):
            let contentID = try contents.use(entry, in: db)
            let fields = storedFields(of: entry)
            func insertRow() throws {
                var row = RowInserter(statements.insert, in: db)
                row.bind(entry.deliveredAt)
                row.bind(key)
                row.bind(observation.pointee.sequence)
                row.bind(observation.pointee.deviceID)
                row.bind(observation.pointee.bundleID)
                row.bind(identifier)
                row.bind(fields)
                row.bind(contentID)
                try row.step()
            }
            try insertRow()
            if db.changesCount == 0 {
                // The same entry listed again in the same millisecond: the newer replaces it.
                release(try Int64?.fetchAll(statements.deleteByKey, arguments: [entry.deliveredAt, key]), contents: &contents)
                try insertRow()
            }
        case (.removed, _):
            if let deliveredAt = observation.pointee.removedEntryDeliveredAt {
                release(try Int64?.fetchAll(statements.deleteByKey, arguments: [deliveredAt, key]), contents: &contents)
            } else {
                // Not recorded by a session (none is today): found the slow way, by a scan.
                let arguments: StatementArguments = [observation.pointee.deviceID, observation.pointee.bundleID, identifier]
                release(try Int64?.fetchAll(statements.deleteByIdentifier, arguments: arguments), contents: &contents)
            }
        case (.added, nil):
            return
        }
    }

    /// The second half of an entry's row key: a 64-bit hash of whose entry it is. Two entries
    /// delivered in the same millisecond with the same hash would share a row; with 64 bits
    /// that takes billions of entries in one millisecond.
    static func entryKey(deviceID: String, bundleID: String, identifier: String) -> Int64 {
        var hash = FNV1a()
        hash.add(deviceID)
        hash.add(0)
        hash.add(bundleID)
        hash.add(0)
        hash.add(identifier)
        return hash.value
    }

    private static func release(_ contentIDs: [Int64?], contents: inout ContentIDs) {
        for contentID in contentIDs {
            if let contentID { contents.release(contentID) }
        }
    }

    /// Every entry of the devices: one scan of the table (rows are not indexed by device; a
    /// device is removed far less often than it is pushed to).
    static func removeDevices(_ deviceIDs: [String], contents: inout ContentIDs, in db: Database) throws {
        guard !deviceIDs.isEmpty else { return }
        let ids = String(decoding: try JSONEncoder().encode(deviceIDs), as: UTF8.self)
        let delete = try db.cachedStatement(sql: """
            DELETE FROM notificationEntries WHERE deviceId IN (SELECT value FROM json_each(?)) RETURNING contentId
            """)
        release(try Int64?.fetchAll(delete, arguments: [ids]), contents: &contents)
        try contents.settle(in: db)
    }

    static func removeAll(in db: Database) throws {
        try db.execute(sql: "DELETE FROM notificationEntries")
        try db.execute(sql: "DELETE FROM notificationContents")
    }
}
