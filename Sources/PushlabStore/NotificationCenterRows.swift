import GRDB
import PushlabCore
import PushlabSimulator

/// Notification Center entries, kept up to date from the `notificationCenter` observations
/// (an `added` one carries the entry) rather than from device snapshots.
enum NotificationCenterRows {
    static func apply(_ observations: some Sequence<Observation>, into db: Database) throws {
        let upsert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO notificationCenter (deviceId, bundleId, identifier, sequence, entry) VALUES (?, ?, ?, ?, ?)")
        let delete = try db.cachedStatement(sql: "DELETE FROM notificationCenter WHERE deviceId = ? AND bundleId = ? AND identifier = ?")
        for observation in observations {
            guard case .notificationCenter(let change, _, let entry) = observation.event, let identifier = observation.notificationID else { continue }
            switch (change, entry) {
            case (.added, let entry?):
                try upsert.execute(arguments: [observation.deviceID, observation.bundleID, identifier, observation.sequence, entry.jsonText])
            case (.removed, _):
                try delete.execute(arguments: [observation.deviceID, observation.bundleID, identifier])
            case (.added, nil):
                continue
            }
        }
    }

    static func removeDevice(_ deviceID: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM notificationCenter WHERE deviceId = ?", arguments: [deviceID])
    }

    /// Every device's entries, oldest first per app: [deviceId: [bundleId: entries]].
    static func all(in db: Database) throws -> [String: [String: [DeliveredNotification]]] {
        var result: [String: [String: [DeliveredNotification]]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT deviceId, bundleId, identifier, entry FROM notificationCenter ORDER BY sequence") {
            let deviceID: String = try row.decode(forColumn: "deviceId")
            let bundleID: String = try row.decode(forColumn: "bundleId")
            let identifier: String = try row.decode(forColumn: "identifier")
            let text: String = try row.decode(forColumn: "entry")
            guard let json = try? JSONParser.parse(text), let entry = DeliveredNotification(json: json) else {
                throw StoreError(.unreadable, "Notification Center entry \(identifier) of \(deviceID) cannot be read back: \(text)")
            }
            result[deviceID, default: [:]][bundleID, default: []].append(entry)
        }
        return result
    }
}
