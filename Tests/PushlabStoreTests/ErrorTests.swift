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
            try db.execute(sql: "INSERT INTO observations VALUES (7, 0, 'phone', 'com.example.app', NULL, 'banner', '{not json')")
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
}
