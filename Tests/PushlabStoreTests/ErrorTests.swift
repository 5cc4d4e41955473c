import Foundation
import GRDB
@testable import PushlabStore
import Testing

@Suite("Errors: readable, never a crash")
struct ErrorTests {
    static func openError(_ path: String) -> StoreError? {
        let lab = TestPushlab()
        do {
            _ = try lab.recordingStore(path: path)
            return nil
        } catch {
            return error
        }
    }

    @Test func aMissingFolderIsNamed() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("no-such-folder/store.db")
        let error = try #require(Self.openError(path))
        #expect(error.kind == .cannotOpen)
        #expect(error.description.hasPrefix("Cannot open store \(path): "))
        #expect(error.description.contains("unable to open database file"))
    }

    @Test func aFolderIsNotADatabase() throws {
        let folder = try TemporaryDirectory()
        let error = try #require(Self.openError(folder.url.path))
        #expect(error.kind == .cannotOpen && error.description.hasPrefix("Cannot open store \(folder.url.path): "))
    }

    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftAlone() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("notes.db")
        let text = String(repeating: "These are notes, not a database. ", count: 100)
        try text.write(toFile: path, atomically: true, encoding: .utf8)

        let error = try #require(Self.openError(path))
        #expect(error.kind == .cannotOpen)
        #expect(error.description.hasPrefix("Cannot open store \(path): "))
        #expect(error.description.contains("not a database"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test func aDamagedRowIsReportedNotSkipped() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        try await store.database.write { db in
            // A chunk of one banner whose details are not JSON.
            var chunk = ChunkWriter(capacity: 64)
            chunk.byte(ObservationChunk.formatVersion)
            chunk.unsigned(1)
            chunk.signed(7)
            chunk.signed(0)
            for text in ["phone", "com.example.app"] { chunk.unsigned(0); chunk.text(text) }
            chunk.byte(0)  // no notification id
            chunk.unsigned(0); chunk.text("banner")
            chunk.byte(0)  // details as JSON text
            chunk.unsigned(0); chunk.text("{not json")
            try db.execute(
                sql: "INSERT INTO observationChunks (batch, firstSequence, lastSequence, count, records) VALUES (1, 7, 7, 1, ?)",
                arguments: [Data(chunk.bytes)]
            )
            try db.execute(sql: "INSERT INTO devices VALUES ('phone', '{\"id\": 42}')")
        }

        #expect { try store.observations() } throws: { error in
            let error = try #require(error as? StoreError)
            return error.kind == .unreadable && error.description.hasPrefix("Cannot read store \(path): observation 7 has details that are not JSON")
        }
        #expect { try store.load() } throws: { error in
            let error = try #require(error as? StoreError)
            return error.kind == .unreadable && error.description.hasPrefix("Cannot read store \(path): device phone cannot be read back")
        }
        #expect(lab.simulator.deviceCount == 0, "a failed load changes nothing")
        try await store.close()
    }

    @Test func aTruncatedChunkIsReportedNotReadPastItsEnd() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        store.record([.badge(1), .badge(2), .badge(3)])
        try await store.flush()
        try await store.database.write { db in try db.execute(sql: "UPDATE observationChunks SET records = substr(records, 1, length(records) - 3)") }
        #expect { try store.observations() } throws: { error in
            let error = try #require(error as? StoreError)
            return error.kind == .unreadable && error.description.contains("a chunk of saved observations claims 11 items or bytes with 8 bytes left")
        }
        try await store.close()
    }
}
