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
        try observations.forEach(in: observations.indices) { observation in try apply(observation, contents: &contents, in: db) }
        try contents.settle(in: db)
    }

    private static func apply(_ observation: Observation, contents: inout ContentIDs, in db: Database) throws {
        guard case .notificationCenter(let change, _, let entry) = observation.event, let identifier = observation.notificationID else { return }
        let key = entryKey(deviceID: observation.deviceID, bundleID: observation.bundleID, identifier: identifier)
        switch (change, entry) {
        case (.added, let entry?):
            let contentID = try contents.use(entry, in: db)
            let insert = try db.cachedStatement(sql: """
                INSERT INTO notificationEntries (deliveredAt, entryKey, sequence, deviceId, bundleId, identifier, entry, contentId)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """)
            func insertRow() throws {
                var row = RowInserter(insert, in: db)
                row.bind(entry.deliveredAt)
                row.bind(key)
                row.bind(observation.sequence)
                row.bind(observation.deviceID)
                row.bind(observation.bundleID)
                row.bind(identifier)
                row.bind(entry.fieldsText)
                row.bind(contentID)
                try row.step()
            }
            try insertRow()
            if db.changesCount == 0 {
                // The same entry listed again in the same millisecond: the newer replaces it.
                try remove(deliveredAt: entry.deliveredAt, key: key, contents: &contents, in: db)
                try insertRow()
            }
        case (.removed, _):
            if let deliveredAt = observation.removedEntryDeliveredAt {
                try remove(deliveredAt: deliveredAt, key: key, contents: &contents, in: db)
            } else {
                // Not recorded by a session (none is today): found the slow way, by a scan.
                let delete = try db.cachedStatement(sql: """
                    DELETE FROM notificationEntries WHERE deviceId = ? AND bundleId = ? AND identifier = ? RETURNING contentId
                    """)
                try release(try Int64?.fetchAll(delete, arguments: [observation.deviceID, observation.bundleID, identifier]), contents: &contents, in: db)
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
        for byte in deviceID.utf8 { hash.add(byte) }
        hash.add(0)
        for byte in bundleID.utf8 { hash.add(byte) }
        hash.add(0)
        for byte in identifier.utf8 { hash.add(byte) }
        return hash.value
    }

    private static func remove(deliveredAt: EpochMilliseconds, key: Int64, contents: inout ContentIDs, in db: Database) throws {
        let delete = try db.cachedStatement(sql: "DELETE FROM notificationEntries WHERE deliveredAt = ? AND entryKey = ? RETURNING contentId")
        try release(try Int64?.fetchAll(delete, arguments: [deliveredAt, key]), contents: &contents, in: db)
    }

    private static func release(_ contentIDs: [Int64?], contents: inout ContentIDs, in db: Database) throws {
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
        try release(try Int64?.fetchAll(delete, arguments: [ids]), contents: &contents, in: db)
        try contents.settle(in: db)
    }

    static func removeAll(in db: Database) throws {
        try db.execute(sql: "DELETE FROM notificationEntries")
        try db.execute(sql: "DELETE FROM notificationContents")
    }

    /// Every device's entries, oldest first per app: [deviceId: [bundleId: entries]]. Entries of
    /// one content share it in memory too.
    static func all(in db: Database) throws -> [String: [String: [DeliveredNotification]]] {
        var result: [String: [String: [DeliveredNotification]]] = [:]
        var firstOfContent: [Int64: DeliveredNotification] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT n.deviceId, n.bundleId, n.identifier, n.entry, n.contentId, c.json FROM notificationEntries n
            LEFT JOIN notificationContents c ON c.id = n.contentId ORDER BY n.sequence
            """)
        while let row = try rows.next() {
            let deviceID: String = row[0]
            let bundleID: String = row[1]
            let identifier: String = row[2]
            let text: String = row[3]
            let contentID: Int64? = row[4]
            let contentText: String? = row[5]
            func unreadable() -> StoreError { StoreError(.unreadable, "Notification Center entry \(identifier) of \(deviceID) cannot be read back: \(text)") }
            guard var json = try? JSONParser.parse(text), json.isObject else { throw unreadable() }
            var entry: DeliveredNotification
            if let contentID {
                if let first = firstOfContent[contentID], let fields = DeliveredNotification(fields: json, sharingContentWith: first) {
                    entry = fields
                } else {
                    guard let contentText, let content = try? JSONParser.parse(contentText), case .object(var members) = json else { throw unreadable() }
                    members.append(("content", content))
                    json = .object(members)
                    guard let built = DeliveredNotification(json: json) else { throw unreadable() }
                    entry = built
                    firstOfContent[contentID] = built
                }
            } else {
                guard let built = DeliveredNotification(json: json) else { throw unreadable() }
                entry = built
            }
            result[deviceID, default: [:]][bundleID, default: []].append(entry)
        }
        return result
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
}

/// The writer's side of `notificationContents`: finds or adds a content's row and counts its
/// users. Counts change in memory and reach the rows at `settle(in:)`, once per content per
/// batch (a load test's pushes each add a user and, with a full Notification Center, take one
/// away: two updates of one row per push before); the rows of the last few shared parts are
/// remembered, so a load test's pushes look nothing up.
struct ContentIDs {
    private var recent: [(part: DeliveredNotification.Shared, id: Int64)] = []
    private var next = 0
    private var texts = ContentTexts()
    /// Users added (or, below zero, gone) since the last `settle(in:)`.
    private var changes: [Int64: Int] = [:]
    private static let size = 16

    /// The content's row, counting one more user.
    mutating func use(_ entry: DeliveredNotification, in db: Database) throws -> Int64 {
        let part = entry.sharedPart
        if let known = recent.first(where: { $0.part === part }) {
            changes[known.id, default: 0] += 1
            return known.id
        }
        let text = texts.text(of: entry)
        let hash = BatchIndexRows.key(text)
        let find = try db.cachedStatement(sql: "SELECT id FROM notificationContents WHERE hash = ? AND json = ?")
        let id: Int64
        if let found = try Int64.fetchOne(find, arguments: [hash, text]) {
            id = found
        } else {
            let add = try db.cachedStatement(sql: "INSERT INTO notificationContents (hash, json, refs) VALUES (?, ?, 0)")
            try add.execute(arguments: [hash, text])
            id = db.lastInsertedRowID
        }
        changes[id, default: 0] += 1
        remember(part, id)
        return id
    }

    /// One user fewer.
    mutating func release(_ id: Int64) {
        changes[id, default: 0] -= 1
    }

    /// Writes the counts; a row whose last user left goes (and is forgotten).
    mutating func settle(in db: Database) throws {
        guard !changes.isEmpty else { return }
        let update = try db.cachedStatement(sql: "UPDATE notificationContents SET refs = refs + ? WHERE id = ? RETURNING refs")
        let delete = try db.cachedStatement(sql: "DELETE FROM notificationContents WHERE id = ?")
        for (id, change) in changes where change != 0 {
            guard let refs = try Int.fetchOne(update, arguments: [change, id]), refs <= 0 else { continue }
            try delete.execute(arguments: [id])
            recent.removeAll { $0.id == id }
            next = 0
        }
        changes = [:]
    }

    private mutating func remember(_ part: DeliveredNotification.Shared, _ id: Int64) {
        if recent.count < Self.size {
            recent.append((part, id))
        } else {
            recent[next] = (part, id)
            next = (next + 1) % Self.size
        }
    }
}
