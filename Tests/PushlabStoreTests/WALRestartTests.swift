import Foundation
import GRDB
@testable import PushlabStore
import Testing

@Suite("The write-ahead log starts over under a steady load")
struct WALRestartTests {
    @Test func theLogStaysSmallWhileCommitsKeepComing() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let database = try StoreDatabase.open(path)
        try database.write { db in try db.execute(sql: "CREATE TABLE filler (bytes BLOB NOT NULL)") }
        let checkpointer = try WALCheckpointer(path: path, spacing: .zero, restartFrames: 64)
        checkpointer.start()
        let blob = Data(repeating: 7, count: 32 * 1024)
        // 64 MB in 2,048 commits, each right after the other: a PASSIVE checkpoint alone never
        // finds the log wholly copied, and the log grew by all of it.
        for _ in 0..<2048 {
            try database.write { db in try db.execute(sql: "INSERT INTO filler (bytes) VALUES (?)", arguments: [blob]) }
            checkpointer.committed()
            // As `BatchWriter` does between batches.
            checkpointer.restartIfWanted { try database.writeWithoutTransaction { db in _ = try db.checkpoint(.restart) } }
        }
        checkpointer.stop()
        let size = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(size < 16 * 1024 * 1024, "the log is \(size) bytes")
    }
}
