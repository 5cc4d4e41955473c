import Foundation
import GRDB
import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

@Suite("Device snapshots: streamed JSON, written only when they changed")
struct SnapshotEncodingTests {
    /// A device with pushes held, stored, listed and throttled, and every optional part.
    private func busyDevice() throws -> SimulatedDevice {
        let lab = TestPushlab()
        try lab.addPhone("phone-1")
        try ObservationStoreTests.driveEveryKind(lab, phone: "phone-1")
        try lab.simulator.updateDevice("phone-1", lowPowerMode: true)
        lab.push(to: lab.token("phone-1"), priority: 5, payload: #"{"aps":{"alert":"held \"quoted\"\n\t\u0001"},"z":1,"a":2.5}"#)
        return try #require(lab.simulator.device("phone-1"))
    }

    @Test func aStreamedSnapshotDecodesToTheSameDevice() throws {
        let device = try busyDevice()
        let bytes = try StreamingJSONEncoder.encode(device)
        #expect(try JSONDecoder().decode(SimulatedDevice.self, from: Data(bytes)) == device)
    }

    @Test func aStreamedSnapshotHoldsWhatFoundationsEncoderWrites() throws {
        let device = try busyDevice()
        let streamed = try JSONSerialization.jsonObject(with: Data(try StreamingJSONEncoder.encode(device))) as? NSDictionary
        let encoder = JSONEncoder()
        encoder.userInfo[.omitsDefaults] = true
        let foundation = try JSONSerialization.jsonObject(with: try encoder.encode(device)) as? NSDictionary
        #expect(streamed != nil && streamed == foundation)
    }

    @Test func aSnapshotLeavesOutCallbacksThatAreEveryOneOfTheAPIs() throws {
        func apps(_ bytes: [UInt8]) throws -> [[String: Any]] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            return try #require(object["apps"] as? [[String: Any]])
        }
        let device = SimulatedDevice(id: "phone-1", apps: [
            AppInstall(bundleID: "com.example.every", deviceToken: ""),
            AppInstall(bundleID: "com.example.legacy", deviceToken: "", api: .legacy),
            AppInstall(bundleID: "com.example.few", deviceToken: "", implements: [.didFinishLaunching, .willPresent]),
        ])
        let saved = try apps(StreamingJSONEncoder.encode(device))
        #expect(saved.map { $0["implements"] == nil } == [true, true, false], "only the default of each API is left out")
        let loaded = try JSONDecoder().decode(SimulatedDevice.self, from: Data(try StreamingJSONEncoder.encode(device)))
        #expect(loaded == device)
        #expect(loaded.apps[1].implements == AppCallback.all(for: .legacy))
        let listed = try apps(Array(try JSONEncoder().encode(device)))
        #expect(listed.allSatisfy { $0["implements"] != nil }, "the control API's JSON lists every install's callbacks")
    }

    @Test func stringsAreEscapedAndNumbersKeepTheirValue() throws {
        struct Sample: Codable, Equatable {
            var text: String
            var numbers: [Double]
            var nested: [String: [Int64]]
            var absent: String?
            var flags: Set<Bool>
        }
        let sample = Sample(
            text: "quote \" backslash \\ newline \n tab \t bell \u{07} é 🚀", numbers: [0, -1, 2.5, 1e300, -0.125],
            nested: ["a": [1, Int64.max], "b": []], absent: nil, flags: [true]
        )
        let bytes = try StreamingJSONEncoder.encode(sample)
        #expect(try JSONDecoder().decode(Sample.self, from: Data(bytes)) == sample)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("absent"), "a nil optional is left out, as Foundation does")
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder.encode([Double.nan]) }
    }

    @Test func aNumberThatIsNotJSONIsReportedWithItsPath() throws {
        struct Reading: Encodable { var value: Double }
        struct Sensor: Encodable { var name = "a"; var readings: [String: Reading] }
        struct Site: Encodable { var first: Sensor; var second: Sensor }
        let site = Site(first: Sensor(readings: ["r": Reading(value: 1)]), second: Sensor(readings: ["r": Reading(value: .infinity)]))
        do {
            _ = try StreamingJSONEncoder.encode(site)
            Issue.record("an infinite number was encoded")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["second", "readings", "r", "value"])
        }
        let numbers: [Int64] = [0, -7, Int64.min, Int64.max, 1_000_000]
        #expect(String(decoding: try StreamingJSONEncoder.encode(numbers), as: UTF8.self) == "[0,-7,-9223372036854775808,9223372036854775807,1000000]")
        #expect(String(decoding: try StreamingJSONEncoder.encode([UInt64.max]), as: UTF8.self) == "[18446744073709551615]")
        #expect(String(decoding: try StreamingJSONEncoder.encode([true, false]), as: UTF8.self) == "[true,false]")
    }

    @Test func anUnchangedDeviceIsNotWrittenAgainUntilItChanges() throws {
        let database = try DatabaseQueue()
        try StoreSchema.migrator.migrate(database)
        var device = try busyDevice()
        var fingerprints = SnapshotFingerprints()
        var log = NotificationLog()
        func write(_ device: SimulatedDevice) throws -> Int {
            let written = try database.write { db in try DeviceRows.write([device.id: .saved(device)], into: db, log: &log, unlessSaved: fingerprints) }
            fingerprints.record(written)
            return written.count
        }
        #expect(try write(device) == 1)
        #expect(try write(device) == 0)
        // Notification Center is saved apart from the snapshot: a new entry alone changes nothing.
        device.apps[0].notificationCenter.append(DeliveredNotification(
            identifier: "extra", isLocal: true, collapseID: nil, content: NotificationContent(body: "x"), deliveredAt: 1, trigger: "timeInterval"
        ))
        #expect(try write(device) == 0)
        device.apps[0].badge += 1
        #expect(try write(device) == 1)
        let saved = try database.read { db in try String.fetchOne(db, sql: "SELECT json FROM devices") }
        #expect(try JSONDecoder().decode(SimulatedDevice.self, from: Data(try #require(saved).utf8)).apps[0].badge == device.apps[0].badge)
    }

    @Test func aSnapshotFromABatchThatFailedIsWrittenAgainByTheRetry() throws {
        let database = try DatabaseQueue()
        try StoreSchema.migrator.migrate(database)
        var device = try busyDevice()
        var fingerprints = SnapshotFingerprints()
        var log = NotificationLog()
        fingerprints.record(try database.write { db in try DeviceRows.write([device.id: .saved(device)], into: db, log: &log, unlessSaved: fingerprints) })
        device.apps[0].badge += 5
        struct Rollback: Error {}
        // The batch wrote the new snapshot, then failed: the writer records nothing of it.
        _ = try? database.write { db -> Void in
            #expect(try DeviceRows.write([device.id: .saved(device)], into: db, log: &log, unlessSaved: fingerprints).count == 1)
            throw Rollback()
        }
        let retry = try database.write { db in try DeviceRows.write([device.id: .saved(device)], into: db, log: &log, unlessSaved: fingerprints) }
        #expect(retry.count == 1, "the rolled-back snapshot is written again")
        let saved = try database.read { db in try String.fetchOne(db, sql: "SELECT json FROM devices") }
        #expect(try JSONDecoder().decode(SimulatedDevice.self, from: Data(try #require(saved).utf8)).apps[0].badge == device.apps[0].badge)
    }

    @Test func passesOfSnapshotsTakeAtMostATenthOfTheWritersTime() {
        #expect(BatchWriter.spacing(after: .milliseconds(100), interval: .seconds(5)) == .seconds(5))
        #expect(BatchWriter.spacing(after: .milliseconds(1500), interval: .seconds(5)) == .milliseconds(13_500))
        #expect(BatchWriter.spacing(after: .zero, interval: .seconds(5)) == .seconds(5))
    }
}
