import Foundation
import GRDB
import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

@Suite("Notification Center rows keyed by delivery time, found again without an index by device")
struct NotificationEntryRowsTests {
    private func rows(_ store: PushlabStore) async throws -> [(deviceID: String, identifier: String)] {
        try await store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT deviceId, identifier FROM notificationEntries ORDER BY sequence").map { ($0[0], $0[1]) }
        }
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
        #expect(try await rows(store).filter { $0.deviceID == "phone-1" }.map(\.identifier) == live)
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
        let fields = try await store.database.read { db in try String.fetchAll(db, sql: "SELECT entry FROM notificationEntries ORDER BY sequence") }
        #expect(fields.count == 2)
        #expect(fields.first == "", "identifier and time are the row's own")
        #expect(fields.last?.contains(#""collapseId":"score""#) == true)
        try await store.close()

        let next = TestPushlab()
        let reader = try next.recordingStore(path: path)
        let loaded = try reader.load()
        #expect(loaded.first?.apps.first?.notificationCenter == lab.simulator.device("phone-1")?.apps.first?.notificationCenter)
        try await reader.close()
    }

    @Test func removingADeviceTakesItsRowsAndTheirContent() async throws {
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
        #expect(try await rows(store).map(\.deviceID) == ["phone-2"])
        let contents = try await store.database.read { db in try Int.fetchAll(db, sql: "SELECT refs FROM notificationContents") }
        #expect(contents == [1], "the content only phone-1 used went with it")
        try await store.close()
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
        #expect(lab.simulator.unsavedChangeCount == 0, "the entry is a row of its own")
        try lab.simulator.interact(.clearAll(bundleID: TestPushlab.app), on: "phone-1")
        #expect(lab.simulator.unsavedChangeCount == 0)
        lab.push(to: lab.token("phone-1"))
        #expect(lab.simulator.unsavedChangeCount == 1, "the push's badge changed the app")
        try await store.close()
    }

    @Test func entriesOfAnOlderStoreMoveToRowsKeyedByTime() async throws {
        let folder = try TemporaryDirectory()
        let entry = DeliveredNotification(
            identifier: "8C1E4C5A-5E1A-4D8F-9B6E-2B7F0C9A1D11", isLocal: false, collapseID: nil,
            content: NotificationContent(title: "Kept", body: "from before"), deliveredAt: 1_767_225_600_123, trigger: "push"
        )
        let device = SimulatedDevice(id: "phone-1", apps: [AppInstall(bundleID: TestPushlab.app, deviceToken: String(repeating: "0a", count: 32))])
        let deviceJSON = String(decoding: try JSONEncoder().encode(device), as: UTF8.self)
        let path = try await folder.olderStore(upTo: "7-notification-contents") { db in
            try db.execute(sql: "INSERT INTO devices (id, json) VALUES (?, ?)", arguments: ["phone-1", deviceJSON])
            try db.execute(
                sql: "INSERT INTO notificationCenter (deviceId, bundleId, identifier, sequence, entry) VALUES (?, ?, ?, ?, ?)",
                arguments: ["phone-1", TestPushlab.app, entry.identifier, 7, entry.jsonText]
            )
        }
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: path)
        let moved = try await store.database.read { db in
            try Row.fetchOne(db, sql: "SELECT deliveredAt, entryKey, sequence FROM notificationEntries")
        }
        #expect(moved?[0] == 1_767_225_600_123 as Int64)
        #expect(moved?[1] == NotificationCenterRows.entryKey(deviceID: "phone-1", bundleID: TestPushlab.app, identifier: entry.identifier))
        #expect(moved?[2] == 7 as Int64)
        let loaded = try store.load()
        #expect(loaded.first?.apps.first?.notificationCenter.map(\.content.title) == ["Kept"])
        try await store.close()
    }
}
