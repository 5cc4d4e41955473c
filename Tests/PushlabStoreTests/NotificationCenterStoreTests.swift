import Foundation
import GRDB
import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

@Suite("Notification Center in the store: one content row per payload, counted")
struct NotificationCenterStoreTests {
    private func contentRows(_ store: PushlabStore) async throws -> [(refs: Int, json: String)] {
        try await store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT refs, json FROM notificationContents ORDER BY id").map { ($0[0], $0[1]) }
        }
    }

    @Test func entriesOfOnePayloadShareOneCountedContentRow() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"))
        for phone in ["phone-1", "phone-2", "phone-3"] { try lab.addPhone(phone) }
        for phone in ["phone-1", "phone-2", "phone-3"] { lab.push(to: lab.token(phone)) }
        lab.push(to: lab.token("phone-1"), payload: #"{"aps":{"alert":"other"}}"#)
        try await store.flush()
        let rows = try await contentRows(store)
        #expect(rows.map(\.refs) == [3, 1])
        #expect(rows.first?.json.contains(#""title":"Goal""#) == true)

        try lab.simulator.interact(.clearAll(bundleID: TestPushlab.app), on: "phone-1")
        try await store.flush()
        #expect(try await contentRows(store).map(\.refs) == [2], "the last user of a content takes its row with it")
        try await store.close()
    }

    @Test func reloadedEntriesComeBackWithTheirContentSharedInMemory() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        for phone in ["phone-1", "phone-2"] { try lab.addPhone(phone) }
        for phone in ["phone-1", "phone-2"] { lab.push(to: lab.token(phone)) }
        try await store.close()

        let next = TestPushlab()
        let reader = try next.recordingStore(path: path)
        let loaded = try reader.load()
        let entries = loaded.flatMap { $0.apps.flatMap(\.notificationCenter) }
        #expect(entries.count == 2)
        #expect(entries.map(\.content.title) == ["Goal", "Goal"])
        #expect(entries.first?.content.userInfo["match"] == .number(42))
        #expect(entries[0].sharedPart === entries[1].sharedPart)
        #expect(loaded == lab.simulator.devices.sorted { $0.id < $1.id })
        try await reader.close()
    }

    @Test func anObservationRecordedLateIsFoundInItsPlace() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"))
        // Sequence 2 reaches the store after 3 and 4 were committed: it lands in a later chunk.
        store.record([.badge(1), .badge(3), .badge(4)])
        try await store.flush()
        store.record([.badge(2), .badge(5)])
        try await store.flush()
        #expect(try store.observations(limit: 3).map(\.sequence) == [1, 2, 3])
        #expect(try store.observations(since: 1, limit: 2).map(\.sequence) == [2, 3])
        #expect(try store.observations(deviceID: "phone", limit: 10).map(\.sequence) == [1, 2, 3, 4, 5])
        try await store.close()
    }
}
