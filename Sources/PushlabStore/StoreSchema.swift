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
            // One index: each is another b-tree write per observation, and a busy server records
            // about five per push. The device index serves the main query ("this phone, after
            // N"); app and kind filters narrow what it, or the sequence order, finds.
            try db.create(index: "observations_by_device", on: "observations", columns: ["deviceId", "sequence"])

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

            try db.create(table: "devices") { table in
                table.primaryKey("id", .text)
                table.column("json", .text).notNull()
            }
        }
        migrator.registerMigration("2-meta-notification-center") { db in
            try db.create(table: "meta") { table in
                table.primaryKey("key", .text)
                table.column("value", .text).notNull()
            }
            // Kept apart from the device snapshots, row by row as entries come and go: a busy
            // device's entries change with every push, and re-encoding them all would cost more
            // than the pushes.
            try db.create(table: "notificationCenter") { table in
                table.column("deviceId", .text).notNull()
                table.column("bundleId", .text).notNull()
                table.column("identifier", .text).notNull()
                table.column("sequence", .integer).notNull()
                table.column("entry", .text).notNull()
                table.primaryKey(["deviceId", "bundleId", "identifier"])
            }
        }
        migrator.registerMigration("3-device-index-by-batch") { db in
            // An index keyed by device puts each new row on a random page: past a few hundred
            // thousand rows every insert dirtied a page of its own (4 KiB of WAL per row, 25 µs),
            // and the writer slowed down as the file grew. Batches number upwards, so an index
            // keyed by (batch, device) only ever grows at its end.
            try db.drop(index: "observations_by_device")
            try db.drop(index: "requests_by_device_token")
            try db.create(table: "batches") { table in
                table.primaryKey("batch", .integer)
                table.column("firstObservation", .integer)
                table.column("lastObservation", .integer)
                table.column("firstRequest", .integer)
                table.column("lastRequest", .integer)
            }
            // Keyed by a 64-bit hash of the device id or token: integer keys are cheap to group
            // and compare, and a collision only means a row that the query's own filter drops.
            try db.create(table: "observationIndex", options: .withoutRowID) { table in
                table.column("batch", .integer).notNull()
                table.column("deviceKey", .integer).notNull()
                table.column("sequences", .blob).notNull()
                table.primaryKey(["batch", "deviceKey"])
            }
            try db.create(table: "requestIndex", options: .withoutRowID) { table in
                table.column("batch", .integer).notNull()
                table.column("tokenKey", .integer).notNull()
                table.column("sequences", .blob).notNull()
                table.primaryKey(["batch", "tokenKey"])
            }
        }
        migrator.registerMigration("4-index-buckets") { db in
            // One row per (batch, device) made the index as many rows as a load test has
            // pushes; one row per (batch, hash bucket) of sorted (key, sequence) pairs is at most
            // 256 rows a batch, probed the same way.
            for table in ["observationBuckets", "requestBuckets"] {
                try db.create(table: table, options: .withoutRowID) { table in
                    table.column("batch", .integer).notNull()
                    table.column("bucket", .integer).notNull()
                    table.column("entries", .blob).notNull()
                    table.primaryKey(["batch", "bucket"])
                }
            }
            try BatchIndexRows.indexRowsFromBeforeTheBuckets(in: db)
            try db.drop(table: "observationIndex")
            try db.drop(table: "requestIndex")
        }
        migrator.registerMigration("5-request-chunks") { db in
            // One row per request cost the writer more CPU than the request cost the server;
            // a batch's requests now go in a few blobs (`RequestChunk`).
            try db.create(table: "requestChunks") { table in
                table.primaryKey("id", .integer)
                table.column("batch", .integer).notNull()
                table.column("firstSequence", .integer).notNull()
                table.column("lastSequence", .integer).notNull()
                table.column("records", .blob).notNull()
            }
            try db.create(index: "requestChunks_by_batch", on: "requestChunks", columns: ["batch"])
            try db.create(index: "requestChunks_by_last_sequence", on: "requestChunks", columns: ["lastSequence"])
            try RequestRows.chunksFromRequestRows(in: db)
            try db.drop(table: "requests")
        }
        migrator.registerMigration("6-observation-chunks") { db in
            // A row per observation, details as JSON, cost the writer more per push than the push
            // cost the server; a batch's observations now go in a few blobs (`ObservationChunk`).
            try db.create(table: "observationChunks") { table in
                table.primaryKey("id", .integer)
                table.column("batch", .integer).notNull()
                table.column("firstSequence", .integer).notNull()
                table.column("lastSequence", .integer).notNull()
                table.column("count", .integer).notNull()
                table.column("records", .blob).notNull()
            }
            try db.create(index: "observationChunks_by_batch", on: "observationChunks", columns: ["batch"])
            try db.create(index: "observationChunks_by_last_sequence", on: "observationChunks", columns: ["lastSequence"])
            try ObservationRows.chunksFromObservationRows(in: db)
            try db.drop(table: "observations")
        }
        migrator.registerMigration("7-notification-contents") { db in
            // A Notification Center row repeated its whole payload; contents now have rows of
            // their own, counted by the entries that use them. Older rows keep theirs inline.
            try db.create(table: "notificationContents") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("hash", .integer).notNull()
                table.column("json", .text).notNull()
                table.column("refs", .integer).notNull()
            }
            try db.create(index: "notificationContents_by_hash", on: "notificationContents", columns: ["hash"])
            try db.alter(table: "notificationCenter") { table in table.add(column: "contentId", .integer) }
        }
        migrator.registerMigration("8-notification-entries-by-time") { db in
            // Rows keyed by (device, app, identifier) put each new entry, and each entry a
            // full Notification Center pushes out, on a random page of a b-tree as large as all
            // the entries: 1.5 KB written per push under a load test. Keyed by when the entry was
            // delivered, new rows go at the end and the oldest, which a full Notification Center
            // pushes out, are found at the start.
            try db.create(table: "notificationEntries", options: .withoutRowID) { table in
                table.column("deliveredAt", .integer).notNull()
                table.column("entryKey", .integer).notNull()
                table.column("sequence", .integer).notNull()
                table.column("deviceId", .text).notNull()
                table.column("bundleId", .text).notNull()
                table.column("identifier", .text).notNull()
                table.column("entry", .text).notNull()
                table.column("contentId", .integer)
                table.primaryKey(["deliveredAt", "entryKey"])
            }
            try NotificationCenterRows.entriesFromRowsByIdentifier(in: db)
            try db.drop(table: "notificationCenter")
        }
        migrator.registerMigration("9-notification-log") { db in
            // A row per entry was, under a load test, a sixth of the writer's time; a batch's
            // Notification Center changes are now one blob of a log (`NotificationLog`).
            try db.create(table: "notificationLog") { table in
                table.primaryKey("id", .integer)
                table.column("records", .blob).notNull()
            }
            try NotificationCenterRows.logFromEntryRows(in: db)
            try db.drop(table: "notificationEntries")
        }
        migrator.registerMigration("10-observation-chunks-by-first-sequence") { db in
            // The history limit reads the oldest kept sequence after every batch: without an
            // index that was a scan of every chunk's row, 0.8 ms a batch at a million records.
            try db.create(index: "observationChunks_by_first_sequence", on: "observationChunks", columns: ["firstSequence"])
        }
        migrator.registerMigration("11-accepted-pushes") { db in
            // The log of accepted pushes (`AcceptedPushRows`): what a restart hands to the phones.
            try db.create(table: "acceptedPushes") { table in
                table.primaryKey("id", .integer)
                table.column("partition", .integer).notNull()
                table.column("firstOffset", .integer).notNull()
                table.column("lastOffset", .integer).notNull()
                table.column("records", .blob).notNull()
            }
            try db.create(index: "acceptedPushes_by_partition", on: "acceptedPushes", columns: ["partition", "lastOffset"])
            try db.create(table: "acceptedPushesTaken") { table in
                table.primaryKey("partition", .integer)
                table.column("takenThrough", .integer).notNull()
            }
        }
        return migrator
    }
}
