import Foundation
import GRDB
import PushlabSimulator

/// A device's saved state, or the fact that it was removed.
enum DeviceChange: Sendable {
    case saved(SimulatedDevice)
    case removed
}

/// How device snapshots are written to and read back from the `devices` table: one row per
/// device, the whole `SimulatedDevice` as JSON, so a new field needs no migration.
enum DeviceRows {
    static func write(_ changes: [String: DeviceChange], into db: Database) throws {
        let upsert = try db.cachedStatement(sql: "INSERT INTO devices (id, json) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json")
        let delete = try db.cachedStatement(sql: "DELETE FROM devices WHERE id = ?")
        let encoder = JSONEncoder()
        for (id, change) in changes {
            switch change {
            case .saved(let device):
                let json = String(decoding: try encoder.encode(device), as: UTF8.self)
                try upsert.execute(arguments: [id, json])
            case .removed:
                try delete.execute(arguments: [id])
            }
        }
    }

    static func all(in db: Database) throws -> [SimulatedDevice] {
        let decoder = JSONDecoder()
        return try Row.fetchAll(db, sql: "SELECT id, json FROM devices ORDER BY id").map { row in
            let id: String = try row.decode(forColumn: "id")
            let json: String = try row.decode(forColumn: "json")
            do {
                return try decoder.decode(SimulatedDevice.self, from: Data(json.utf8))
            } catch {
                throw StoreError(.unreadable, "device \(id) cannot be read back: \(error)")
            }
        }
    }
}
