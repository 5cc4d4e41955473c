import GRDB
import PushlabCore
import PushlabSimulator

/// How a Notification Center entry is stored (`NotificationLog` keeps them), and the tables
/// older Pushlabs kept entries in, which migrations move forward.
///
/// An entry keeps its own fields; its content is a row of `notificationContents`, counted by the
/// logged entries that use it and deleted with the last: a load test's entries (or a
/// broadcast's) all use one. Entries written before contents were shared hold the content in
/// their fields and no content id.
enum NotificationCenterRows {
    /// An entry's own fields as JSON, or nothing for the usual remote notification (not local,
    /// no collapse id, triggered by a push), whose fields are its identifier and time.
    static func storedFields(of entry: DeliveredNotification) -> String {
        entry.isLocal || entry.collapseID != nil || entry.trigger != usualTrigger ? entry.fieldsText : ""
    }

    static let usualTrigger = "push"

    /// A 64-bit hash of whose entry it is; with the time it was delivered, the key of an entry.
    /// Two entries delivered in the same millisecond with the same hash would count as one; with
    /// 64 bits that takes billions of entries in one millisecond.
    static func entryKey(deviceID: String, bundleID: String, identifier: String) -> Int64 {
        var hash = FNV1a()
        hash.add(deviceID)
        hash.add(0)
        hash.add(bundleID)
        hash.add(0)
        hash.add(identifier)
        return hash.value
    }

    /// Moves the rows of migration 2's table, keyed by device, app and identifier, into
    /// `notificationEntries` (run once, by migration 8). A row's time is its entry's.
    static func entriesFromRowsByIdentifier(in db: Database) throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT deviceId, bundleId, identifier, sequence, entry, contentId FROM notificationCenter")
        let insert = try db.cachedStatement(sql: """
            INSERT INTO notificationEntries (deliveredAt, entryKey, sequence, deviceId, bundleId, identifier, entry, contentId)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """)
        while let row = try rows.next() {
            let deviceID: String = row[0]
            let bundleID: String = row[1]
            let identifier: String = row[2]
            let text: String = row[4]
            guard let json = try? JSONParser.parse(text), let deliveredAt = json["deliveredAt"]?.integerValue else {
                throw StoreError(.unreadable, "Notification Center entry \(identifier) of \(deviceID) cannot be read back: \(text)")
            }
            let key = entryKey(deviceID: deviceID, bundleID: bundleID, identifier: identifier)
            try insert.execute(arguments: [deliveredAt, key, row[3] as Int64, deviceID, bundleID, identifier, text, row[5] as Int64?])
        }
    }

    /// Moves the rows of migration 8's table, one per entry, into the log (run once, by
    /// migration 9), in sequence order; their contents keep their counts.
    static func logFromEntryRows(in db: Database) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT sequence, deliveredAt, deviceId, bundleId, identifier, entry, contentId FROM notificationEntries ORDER BY sequence
            """)
        var encoder = NotificationLogChunk.Encoder()
        func write() throws {
            guard encoder.count > 0 else { return }
            _ = try NotificationLog.insert(encoder.bytes, in: db)
            encoder = NotificationLogChunk.Encoder()
        }
        while let row = try rows.next() {
            encoder.add(LoggedEntry(
                sequence: row[0], deliveredAt: row[1], deviceID: row[2], bundleID: row[3], id: APNsID(row[4] as String), fields: row[5], contentID: row[6]
            ))
            if encoder.count == NotificationLogChunk.maximumCount { try write() }
        }
        try write()
    }
}
