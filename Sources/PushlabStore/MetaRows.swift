import GRDB

/// Facts about the store itself, one row each.
enum MetaRows {
    /// The fingerprint of the scenario file the saved devices came from.
    static let seededScenario = "seededScenario"
    /// What the `devices` table holds: `changesSinceScenario` (`DeviceRows`) once seeded by this
    /// Pushlab; absent in a store written before, whose rows are every device.
    static let deviceRows = "deviceRows"
    static let changesSinceScenario = "changesSinceScenario"

    static func value(of key: String, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    }

    static func set(_ key: String, to value: String, in db: Database) throws {
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", arguments: [key, value])
    }
}
