import GRDB
@testable import PushlabStore

extension TemporaryDirectory {
    /// A store file as an older Pushlab left it: migrated up to `migration`, then filled by
    /// `write` in that version's tables. Returns its path.
    func olderStore(upTo migration: String, _ write: @Sendable (Database) throws -> Void) async throws -> String {
        let path = path("\(migration).db")
        let old = try DatabaseQueue(path: path)
        try StoreSchema.migrator.migrate(old, upTo: migration)
        try await old.write(write)
        try old.close()
        return path
    }
}
