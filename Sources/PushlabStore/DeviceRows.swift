import Foundation
import GRDB
import PushlabSimulator

/// A device's saved state, or the fact that it was removed.
enum DeviceChange: Sendable {
    case saved(SimulatedDevice)
    case removed
}

/// How device snapshots are written to and read back from the `devices` table: one row per
/// device, the `SimulatedDevice` as JSON (so a new field needs no migration) without its
/// Notification Center entries, which `NotificationCenterRows` keeps.
enum DeviceRows {
    /// Writes `changes`; with `fingerprints`, a snapshot the same as the one last committed is
    /// skipped. Returns what was written, for the caller to record once the batch commits.
    @discardableResult
    static func write(
        _ changes: [String: DeviceChange], into db: Database, contents: inout ContentIDs, unlessSaved fingerprints: SnapshotFingerprints? = nil
    ) throws -> [SnapshotFingerprints.Written] {
        let upsert = try db.cachedStatement(sql: "INSERT INTO devices (id, json) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json")
        let delete = try db.cachedStatement(sql: "DELETE FROM devices WHERE id = ?")
        var written: [SnapshotFingerprints.Written] = []
        for (id, change) in changes {
            switch change {
            case .saved(var device):
                for app in device.apps.indices { device.apps[app].notificationCenter = [] }
                let json = try StreamingJSONEncoder.encode(device)
                if let fingerprints {
                    guard let entry = fingerprints.unsaved(id, json) else { continue }
                    written.append(entry)
                }
                var row = RowInserter(upsert, in: db)
                row.bind(id)
                row.bind(text: json)
                try row.step()
            case .removed:
                try delete.execute(arguments: [id])
                try NotificationCenterRows.removeDevice(id, contents: &contents, in: db)
                written.append(SnapshotFingerprints.removed(id))
            }
        }
        return written
    }

    /// Every saved device, its apps' Notification Center entries put back.
    static func all(in db: Database) throws -> [SimulatedDevice] {
        let decoder = JSONDecoder()
        let entries = try NotificationCenterRows.all(in: db)
        return try Row.fetchAll(db, sql: "SELECT id, json FROM devices ORDER BY id").map { row in
            let id: String = try row.decode(forColumn: "id")
            let json: String = try row.decode(forColumn: "json")
            var device: SimulatedDevice
            do {
                device = try decoder.decode(SimulatedDevice.self, from: Data(json.utf8))
            } catch {
                throw StoreError(.unreadable, "device \(id) cannot be read back: \(error)")
            }
            if let byApp = entries[id] {
                for app in device.apps.indices { device.apps[app].notificationCenter = byApp[device.apps[app].bundleID] ?? [] }
            }
            return device
        }
    }
}
