import GRDB
import PushlabCore
import PushlabSimulator

/// Notification Center entries, kept up to date from the `notificationCenter` observations
/// (an `added` one carries the entry) rather than from device snapshots.
///
/// A row holds the entry's own fields; its content is a row of `notificationContents`, counted
/// by the entries that use it and deleted with the last: a load test's entries (or a
/// broadcast's) all use one, where each row used to repeat the whole payload. Rows written
/// before contents were shared hold the content in their entry and no content id.
enum NotificationCenterRows {
    static func apply(_ observations: some Sequence<Observation>, contents: inout ContentIDs, into db: Database) throws {
        let insert = try db.cachedStatement(sql: """
            INSERT INTO notificationCenter (deviceId, bundleId, identifier, sequence, entry, contentId) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (deviceId, bundleId, identifier) DO NOTHING
            """)
        for observation in observations {
            guard case .notificationCenter(let change, _, let entry) = observation.event, let identifier = observation.notificationID else { continue }
            switch (change, entry) {
            case (.added, let entry?):
                let contentID = try contents.use(entry, in: db)
                func insertRow() throws {
                    var row = RowInserter(insert, in: db)
                    row.bind(observation.deviceID)
                    row.bind(observation.bundleID)
                    row.bind(identifier)
                    row.bind(observation.sequence)
                    row.bind(entry.fieldsText)
                    row.bind(contentID)
                    try row.step()
                }
                try insertRow()
                if db.changesCount == 0 {
                    // The same identifier listed again (a repeating local notification): the new
                    // entry replaces the old one.
                    try remove(deviceID: observation.deviceID, bundleID: observation.bundleID, identifier: identifier, contents: &contents, in: db)
                    try insertRow()
                }
            case (.removed, _):
                try remove(deviceID: observation.deviceID, bundleID: observation.bundleID, identifier: identifier, contents: &contents, in: db)
            case (.added, nil):
                continue
            }
        }
    }

    private static func remove(deviceID: String, bundleID: String, identifier: String, contents: inout ContentIDs, in db: Database) throws {
        let delete = try db.cachedStatement(sql: "DELETE FROM notificationCenter WHERE deviceId = ? AND bundleId = ? AND identifier = ? RETURNING contentId")
        for contentID in try Int64?.fetchAll(delete, arguments: [deviceID, bundleID, identifier]) {
            if let contentID { try contents.release(contentID, in: db) }
        }
    }

    static func removeDevice(_ deviceID: String, contents: inout ContentIDs, in db: Database) throws {
        let delete = try db.cachedStatement(sql: "DELETE FROM notificationCenter WHERE deviceId = ? RETURNING contentId")
        for contentID in try Int64?.fetchAll(delete, arguments: [deviceID]) {
            if let contentID { try contents.release(contentID, in: db) }
        }
    }

    static func removeAll(in db: Database) throws {
        try db.execute(sql: "DELETE FROM notificationCenter")
        try db.execute(sql: "DELETE FROM notificationContents")
    }

    /// Every device's entries, oldest first per app: [deviceId: [bundleId: entries]]. Entries of
    /// one content share it in memory too.
    static func all(in db: Database) throws -> [String: [String: [DeliveredNotification]]] {
        var result: [String: [String: [DeliveredNotification]]] = [:]
        var firstOfContent: [Int64: DeliveredNotification] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT n.deviceId, n.bundleId, n.identifier, n.entry, n.contentId, c.json FROM notificationCenter n
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
}

/// The writer's side of `notificationContents`: finds or adds a content's row and counts its
/// users; remembers the rows of the last few shared parts, so a load test's pushes cost one
/// counter update each.
struct ContentIDs {
    private var recent: [(part: DeliveredNotification.Shared, id: Int64)] = []
    private var next = 0
    private var texts = ContentTexts()
    private static let size = 16

    /// The content's row, counting one more user.
    mutating func use(_ entry: DeliveredNotification, in db: Database) throws -> Int64 {
        let part = entry.sharedPart
        let addUser = try db.cachedStatement(sql: "UPDATE notificationContents SET refs = refs + 1 WHERE id = ?")
        if let known = recent.first(where: { $0.part === part }) {
            try addUser.execute(arguments: [known.id])
            // Deleted meanwhile (its last user left): found or added again below.
            if db.changesCount == 1 { return known.id }
        }
        let text = texts.text(of: entry)
        let hash = BatchIndexRows.key(text)
        let find = try db.cachedStatement(sql: "SELECT id FROM notificationContents WHERE hash = ? AND json = ?")
        let id: Int64
        if let found = try Int64.fetchOne(find, arguments: [hash, text]) {
            try addUser.execute(arguments: [found])
            id = found
        } else {
            let add = try db.cachedStatement(sql: "INSERT INTO notificationContents (hash, json, refs) VALUES (?, ?, 1)")
            try add.execute(arguments: [hash, text])
            id = db.lastInsertedRowID
        }
        remember(part, id)
        return id
    }

    /// One user fewer; the row goes with its last.
    mutating func release(_ id: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE notificationContents SET refs = refs - 1 WHERE id = ?").execute(arguments: [id])
        try db.cachedStatement(sql: "DELETE FROM notificationContents WHERE id = ? AND refs <= 0").execute(arguments: [id])
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
