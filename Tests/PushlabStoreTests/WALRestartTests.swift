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
            checkpointer.restartIfWanted { try WALCheckpointer.restartLog(of: database) }
        }
        checkpointer.stop()
        let size = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(size < 16 * 1024 * 1024, "the log is \(size) bytes")
    }

    @Test func aReaderOnTheLogFailsTheRestartAndTheWriterKeepsItsBusyTimeout() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let database = try StoreDatabase.open(path)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE filler (bytes BLOB NOT NULL)")
            try db.execute(sql: "INSERT INTO filler (bytes) VALUES (zeroblob(65536))")
        }
        // A reader of another process, in the middle of a read, on a thread of its own.
        let reader = try DatabaseQueue(path: path)
        let reading = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            _ = try? reader.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM filler")
                reading.signal()
                release.wait()
            }
            done.signal()
        }.start()
        reading.wait()
        try database.write { db in try db.execute(sql: "INSERT INTO filler (bytes) VALUES (zeroblob(65536))") }
        #expect(throws: DatabaseError.self) { try WALCheckpointer.restartLog(of: database) }
        let timeout = try database.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA busy_timeout") }
        #expect(timeout == 5000)
        release.signal()
        done.wait()
        try WALCheckpointer.restartLog(of: database)
    }
}
