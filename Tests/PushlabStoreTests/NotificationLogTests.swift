import Foundation
import GRDB
import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

@Suite("The Notification Center log: one blob a batch, replayed at load")
struct NotificationLogTests {
    /// What a load would put back, device by device.
    private func replayed(_ store: PushlabStore) async throws -> [String: [String: [DeliveredNotification]]] {
        try await store.database.read { db in try NotificationLogReplay.all(in: db) }
    }

    private func logged(_ store: PushlabStore) async throws -> [NotificationLogRecord] {
        try await store.database.read { db in
            try Data.fetchAll(db, sql: "SELECT records FROM notificationLog ORDER BY id").flatMap { try NotificationLogReplay.decode($0) }
        }
    }

    /// phone-1 with the test app, as a store's device row holds it.
    private func phoneJSON() throws -> String {
        let device = SimulatedDevice(id: "phone-1", apps: [AppInstall(bundleID: TestPushlab.app, deviceToken: String(repeating: "0a", count: 32))])
        return String(decoding: try JSONEncoder().encode(device), as: UTF8.self)
    }

    private func addedEntries(_ records: [NotificationLogRecord]) -> [LoggedEntry] {
        records.compactMap { if case .added(let entry) = $0 { entry } else { nil } }
    }

    private func identifiers(_ device: SimulatedDevice?) -> [String] {
        device?.apps.flatMap(\.notificationCenter).map(\.identifier) ?? []
    }

    @Test func aFullNotificationCenterKeepsItsNewestEntriesAcrossARestart() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        try lab.addPhone("phone-1")
        try lab.addPhone("phone-2")
        for push in 0..<70 {
            lab.push(to: lab.token("phone-1"))
            // Every other push in the same millisecond as the one before: keys differ by entry.
            if push % 2 == 0 { lab.clock.advance(milliseconds: 1) }
        }
        lab.push(to: lab.token("phone-2"))
        try await store.flush()
        let live = identifiers(lab.simulator.device("phone-1"))
        #expect(live.count == 64)
        #expect(try await replayed(store)["phone-1"]?[TestPushlab.app]?.map(\.identifier) == live)
        try await store.close()

        let next = TestPushlab()
        let reader = try next.recordingStore(path: path)
        let loaded = try reader.load()
        #expect(identifiers(loaded.first { $0.id == "phone-1" }) == live, "the six oldest were pushed out, in the store too")
        #expect(identifiers(loaded.first { $0.id == "phone-2" }).count == 1)
        try await reader.close()
    }

    @Test func theUsualEntryKeepsNoFieldsOfItsOwnAndOthersKeepTheirs() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        try lab.addPhone("phone-1")
        lab.push(to: lab.token("phone-1"))
        lab.push(to: lab.token("phone-1"), collapseID: "score")
        try await store.flush()
        let fields = addedEntries(try await logged(store)).map(\.fields)
        #expect(fields.count == 2)
        #expect(fields.first == "", "identifier and time are the record's own")
        #expect(fields.last?.contains(#""collapseId":"score""#) == true)
        try await store.close()

        let next = TestPushlab()
        let reader = try next.recordingStore(path: path)
        let loaded = try reader.load()
        #expect(loaded.first?.apps.first?.notificationCenter == lab.simulator.device("phone-1")?.apps.first?.notificationCenter)
        try await reader.close()
    }

    @Test func removingADeviceTakesItsEntriesAndTheirContent() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"))
        try lab.addPhone("phone-1")
        try lab.addPhone("phone-2")
        lab.push(to: lab.token("phone-1"))
        lab.push(to: lab.token("phone-1"), payload: #"{"aps":{"alert":"only phone-1's"}}"#)
        lab.push(to: lab.token("phone-2"))
        try await store.flush()
        try lab.simulator.removeDevice("phone-1")
        try await store.flush()
        #expect(try await replayed(store).keys.sorted() == ["phone-2"])
        #expect(addedEntries(try await logged(store)).map(\.deviceID) == ["phone-2"], "a flush compacts the log")
        let contents = try await store.database.read { db in try Int.fetchAll(db, sql: "SELECT refs FROM notificationContents") }
        #expect(contents == [1], "the content only phone-1 used went with it")
        try await store.close()
    }

    @Test func aHistoryLimitTrimsObservationsButNoEntry() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path, historyLimit: 10)
        try lab.addPhone("phone-1")
        for _ in 0..<30 {
            lab.push(to: lab.token("phone-1"))
            try await store.flush()
        }
        #expect(store.statistics.trimmedObservations > 0)
        try await store.close()

        let reader = try TestPushlab().recordingStore(path: path)
        let loaded = try reader.load()
        #expect(loaded.first?.apps.first?.notificationCenter.map(\.identifier) == lab.simulator.device("phone-1")?.apps.first?.notificationCenter.map(\.identifier))
        #expect(loaded.first?.apps.first?.notificationCenter.count == 30)
        try await reader.close()
    }

    @Test func aSessionThatChangesOnlyNotificationCenterLeavesNoSnapshotToWrite() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"))
        try lab.addPhone("phone-1")
        try await store.flush()
        #expect(lab.simulator.unsavedChangeCount == 0)
        lab.push(to: lab.token("phone-1"), payload: #"{"aps":{"alert":"no badge, no sound"}}"#)
        #expect(lab.simulator.device("phone-1")?.apps[0].notificationCenter.count == 1)
        #expect(lab.simulator.unsavedChangeCount == 0, "the entry is in the log")
        try lab.simulator.interact(.clearAll(bundleID: TestPushlab.app), on: "phone-1")
        #expect(lab.simulator.unsavedChangeCount == 0)
        lab.push(to: lab.token("phone-1"))
        #expect(lab.simulator.unsavedChangeCount == 1, "the push's badge changed the app")
        try await store.close()
    }

    @Test func entriesOfAnOlderStoreMoveIntoTheLog() async throws {
        let folder = try TemporaryDirectory()
        let entry = DeliveredNotification(
            identifier: "8C1E4C5A-5E1A-4D8F-9B6E-2B7F0C9A1D11", isLocal: false, collapseID: nil,
            content: NotificationContent(title: "Kept", body: "from before"), deliveredAt: 1_767_225_600_123, trigger: "push"
        )
        let deviceJSON = try phoneJSON()
        let path = try await folder.olderStore(upTo: "7-notification-contents") { db in
            try db.execute(sql: "INSERT INTO devices (id, json) VALUES (?, ?)", arguments: ["phone-1", deviceJSON])
            try db.execute(
                sql: "INSERT INTO notificationCenter (deviceId, bundleId, identifier, sequence, entry) VALUES (?, ?, ?, ?, ?)",
                arguments: ["phone-1", TestPushlab.app, entry.identifier, 7, entry.jsonText]
            )
        }
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        let moved = addedEntries(try await logged(store))
        #expect(moved.map(\.sequence) == [7])
        #expect(moved.map(\.deliveredAt) == [1_767_225_600_123])
        #expect(moved.first?.contentID == nil, "its content is in its fields, as it was")
        let loaded = try store.load()
        #expect(loaded.first?.apps.first?.notificationCenter.map(\.content.title) == ["Kept"])
        try await store.close()
    }

    @Test func rowsKeyedByTimeMoveIntoTheLogInSequenceOrderWithTheirContents() async throws {
        let folder = try TemporaryDirectory()
        let deviceJSON = try phoneJSON()
        let shared = NotificationContent(title: "Shared", body: "one row")
        let ids = ["8C1E4C5A-5E1A-4D8F-9B6E-2B7F0C9A1D11", "8C1E4C5A-5E1A-4D8F-9B6E-2B7F0C9A1D12", "local-reminder"]
        let path = try await folder.olderStore(upTo: "8-notification-entries-by-time") { db in
            try db.execute(sql: "INSERT INTO devices (id, json) VALUES (?, ?)", arguments: ["phone-1", deviceJSON])
            try db.execute(sql: "INSERT INTO notificationContents (id, hash, json, refs) VALUES (5, 0, ?, 2)", arguments: [shared.jsonText])
            let local = DeliveredNotification(
                identifier: ids[2], isLocal: true, collapseID: nil, content: shared, deliveredAt: 1_000, trigger: "timeInterval"
            )
            // Out of key order: the log keeps the sequence order.
            let rows: [[any DatabaseValueConvertible & Sendable]?] = [
                [3_000, NotificationCenterRows.entryKey(deviceID: "phone-1", bundleID: TestPushlab.app, identifier: ids[0]), 9, ids[0], "", 5],
                [2_000, NotificationCenterRows.entryKey(deviceID: "phone-1", bundleID: TestPushlab.app, identifier: ids[1]), 10, ids[1], "", 5],
                [1_000, NotificationCenterRows.entryKey(deviceID: "phone-1", bundleID: TestPushlab.app, identifier: ids[2]), 11, ids[2], local.fieldsText, 5],
            ]
            for row in rows.compactMap({ $0 }) {
                try db.execute(
                    sql: """
                    INSERT INTO notificationEntries (deliveredAt, entryKey, sequence, deviceId, bundleId, identifier, entry, contentId)
                    VALUES (?, ?, ?, 'phone-1', '\(TestPushlab.app)', ?, ?, ?)
                    """,
                    arguments: StatementArguments(row.map { $0.databaseValue })
                )
            }
        }
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        #expect(addedEntries(try await logged(store)).map(\.sequence) == [9, 10, 11])
        let loaded = try store.load()
        let entries = loaded.first?.apps.first?.notificationCenter ?? []
        #expect(entries.map(\.identifier) == ids)
        #expect(entries.map(\.content.title) == ["Shared", "Shared", "Shared"])
        #expect(entries.last?.isLocal == true && entries.last?.trigger == "timeInterval")
        try await store.close()
    }
}
