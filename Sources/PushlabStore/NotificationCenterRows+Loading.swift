import GRDB
import PushlabCore
import PushlabSimulator

extension NotificationCenterRows {
    /// Every device's entries, oldest first per app: [deviceId: [bundleId: entries]]. Entries of
    /// one content share it in memory too.
    static func all(in db: Database) throws -> [String: [String: [DeliveredNotification]]] {
        var result: [String: [String: [DeliveredNotification]]] = [:]
        var firstOfContent: [Int64: DeliveredNotification] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT n.deviceId, n.bundleId, n.identifier, n.entry, n.contentId, c.json, n.deliveredAt FROM notificationEntries n
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
            let deliveredAt: Int64 = row[6]
            guard var json = text.isEmpty ? usualFields(identifier: identifier, deliveredAt: deliveredAt) : try? JSONParser.parse(text), json.isObject else {
                throw unreadable()
            }
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

    /// The fields `storedFields(of:)` leaves out.
    private static func usualFields(identifier: String, deliveredAt: Int64) -> JSONValue {
        .object([
            ("identifier", .string(identifier)), ("isLocal", .bool(false)), ("trigger", .string(usualTrigger)),
            ("deliveredAt", .number(Double(deliveredAt))),
        ])
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
