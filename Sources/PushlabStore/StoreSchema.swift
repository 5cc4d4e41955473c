import GRDB

/// The store's tables, built by versioned migrations: a file written by an older Pushlab is
/// brought up to date when it is opened, never recreated.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1-observations-requests-devices") { db in
            try db.create(table: "observations") { table in
                table.primaryKey("sequence", .integer)
                table.column("time", .integer).notNull()
                table.column("deviceId", .text).notNull()
                table.column("bundleId", .text).notNull()
                table.column("notificationId", .text)
                table.column("kind", .text).notNull()
                table.column("details", .text).notNull()
            }
            // Each filter of `observations(deviceID:since:bundleID:kind:limit:)` walks its own
            // index in sequence order, so "the next 100 after N" stays cheap with millions of rows.
            try db.create(index: "observations_by_device", on: "observations", columns: ["deviceId", "sequence"])
            try db.create(index: "observations_by_bundle", on: "observations", columns: ["bundleId", "sequence"])
            try db.create(index: "observations_by_kind", on: "observations", columns: ["kind", "sequence"])

            try db.create(table: "requests") { table in
                table.primaryKey("sequence", .integer)
                table.column("time", .integer).notNull()
                table.column("connectionId", .integer).notNull()
                table.column("environment", .text).notNull()
                table.column("deviceToken", .text)
                table.column("topic", .text)
                table.column("pushType", .text)
                table.column("status", .integer).notNull()
                table.column("reason", .text)
                table.column("apnsId", .text).notNull()
            }
            try db.create(index: "requests_by_device_token", on: "requests", columns: ["deviceToken", "sequence"])
            try db.create(index: "requests_by_status", on: "requests", columns: ["status", "sequence"])
            try db.create(index: "requests_by_reason", on: "requests", columns: ["reason", "sequence"])

            try db.create(table: "devices") { table in
                table.primaryKey("id", .text)
                table.column("json", .text).notNull()
            }
        }
        migrator.registerMigration("2-meta") { db in
            try db.create(table: "meta") { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
        }
        return migrator
    }
}
