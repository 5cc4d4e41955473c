import Foundation
import GRDB

/// Opens the SQLite database behind a store and brings its schema up to date.
enum StoreDatabase {
    /// SQLite's name for a database that lives in memory only.
    static let inMemoryPath = ":memory:"
    /// How long a connection waits for another's lock, in seconds.
    static let busyTimeout: TimeInterval = 5

    static func open(_ path: String) throws(StoreError) -> any DatabaseWriter {
        var configuration = Configuration()
        configuration.label = "PushlabStore"
        // A second process (or a second store in tests) may hold the write lock for a moment.
        configuration.busyMode = .timeout(busyTimeout)
        do {
            let database: any DatabaseWriter
            if path == inMemoryPath {
                database = try DatabaseQueue(configuration: configuration)
            } else {
                // A pool puts the file in WAL mode: readers never wait for the writer, and a
                // commit survives a crash. NORMAL skips the fsync per commit that FULL makes; a
                // power loss may cost the newest batches, a crash of the process costs nothing.
                // The log is checkpointed by `WALCheckpointer`, never in a commit.
                configuration.prepareDatabase { db in
                    try db.execute(sql: "PRAGMA synchronous = NORMAL")
                    try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
                    // 64 MB of pages per connection instead of 2 MB: the index's last pages (and,
                    // before the Notification Center log, its rows) are rewritten with every
                    // batch, and reading them back from the file each time was a tenth of the
                    // writer's time.
                    try db.execute(sql: "PRAGMA cache_size = -65536")
                }
                database = try DatabasePool(path: path, configuration: configuration)
            }
            try StoreSchema.migrator.migrate(database)
            return database
        } catch {
            throw .cannotOpen(path, error)
        }
    }
}

extension StoreDatabase {
    /// Runs `body` on a consistent snapshot; every failure, SQLite's or a row's, becomes a
    /// `StoreError` naming the file.
    static func read<T>(_ database: any DatabaseReader, path: String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw .cannotRead(path, error)
        }
    }
}
