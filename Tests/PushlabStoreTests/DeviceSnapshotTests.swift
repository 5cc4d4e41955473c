import PushlabCore
import PushlabSimulator
import PushlabStore
import Synchronization
import Testing

@Suite("Devices: saved as they change, loaded into the next run")
struct DeviceSnapshotTests {
    @Test func stateSurvivesIntoAFreshSimulatorAndItsWorld() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")

        let firstRun = TestPushlab()
        let first = try firstRun.recordingStore(path: path)
        try firstRun.addPhone("phone-1", apps: [TestPushlab.app, TestPushlab.news])
        try firstRun.addPhone("phone-2")
        let token = firstRun.token("phone-1")
        firstRun.push(to: token)
        try firstRun.simulator.updateDevice("phone-1", name: "Ana's iPhone", locked: true)
        try firstRun.simulator.removeDevice("phone-2")
        try await first.close()
        let saved = try #require(firstRun.simulator.device("phone-1"))
        #expect(saved.app(TestPushlab.app)?.badge == 3 && saved.app(TestPushlab.app)?.notificationCenter.count == 1)

        let secondRun = TestPushlab()
        #expect(secondRun.world.token(token) == nil)
        let second = try secondRun.recordingStore(path: path)
        let loaded = try second.load()

        #expect(loaded.map(\.id) == ["phone-1"], "the removed phone is gone from the file")
        let reloaded = try #require(secondRun.simulator.device("phone-1"))
        #expect(reloaded.name == "Ana's iPhone" && reloaded.locked)
        #expect(reloaded.app(TestPushlab.app)?.badge == 3)
        #expect(reloaded.app(TestPushlab.app)?.notificationCenter.map(\.content.title) == ["Goal"])
        #expect(reloaded.app(TestPushlab.app)?.notificationCenter.map(\.identifier) == saved.app(TestPushlab.app)?.notificationCenter.map(\.identifier))
        #expect(reloaded.apps.map(\.deviceToken) == saved.apps.map(\.deviceToken))
        #expect(secondRun.world.token(token)?.deviceID == "phone-1", "the token is registered in the fresh world")
        #expect(secondRun.world.token(firstRun.token("phone-1", TestPushlab.news))?.bundleID == TestPushlab.news)
        #expect(secondRun.simulator.lastSequence == firstRun.simulator.lastSequence, "numbering continues")

        // The next run goes on where the first stopped: APNs knows the token, the badge counts on.
        #expect(secondRun.push(to: token, payload: #"{"aps":{"alert":"again","badge":4}}"#)?.status == 200)
        try await second.flush()
        let newest = try second.observations(since: firstRun.simulator.lastSequence, limit: 100)
        #expect(newest.first?.sequence == firstRun.simulator.lastSequence + 1)
        #expect(newest.contains { $0.event == .badge(4) })
        #expect(secondRun.simulator.device("phone-1")?.app(TestPushlab.app)?.notificationCenter.count == 2)
        try await second.close()
    }

    @Test func liveActivitiesAndTheirTokensSurviveARestart() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let firstRun = TestPushlab()
        let first = try firstRun.recordingStore(path: path)
        var app = AppInstall(bundleID: TestPushlab.app, deviceToken: "", state: .foreground)
        app.liveActivities = LiveActivitySupport(frequentUpdates: true)
        try firstRun.simulator.addDevice(SimulatedDevice(id: "phone-1", iosVersion: "18.1", apps: [app]))
        var request = LiveActivity(id: "", attributesType: "Score", attributes: .object([]), contentState: .object([("home", .number(2))]), origin: .app, startedAt: 0)
        request.pushToken = ""
        let started = try firstRun.simulator.startActivity(request, app: TestPushlab.app, on: "phone-1")
        try await first.close()
        let saved = try #require(firstRun.simulator.device("phone-1")?.app(TestPushlab.app)?.liveActivities)

        let secondRun = TestPushlab()
        let second = try secondRun.recordingStore(path: path)
        _ = try second.load()
        let reloaded = try #require(secondRun.simulator.device("phone-1")?.app(TestPushlab.app)?.liveActivities)
        #expect(reloaded == saved)
        #expect(reloaded.activities.map(\.id) == [started.id])
        let pushToStart = try #require(reloaded.pushToStartToken)
        #expect(secondRun.world.token(pushToStart)?.kind == .pushToStart)
        #expect(secondRun.world.token(try #require(started.pushToken))?.kind == .liveActivity)
        try await second.close()
    }

    @Test func aReloadedDeviceMatchesTheSavedOneFieldForField() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"))
        try lab.addPhone("phone-1")
        try ObservationStoreTests.driveEveryKind(lab, phone: "phone-1")
        // Leave pushes held in the saved state: one low power mode holds, one APNs stores.
        try lab.simulator.updateDevice("phone-1", lowPowerMode: true)
        lab.push(to: lab.token("phone-1"), priority: 5, payload: #"{"aps":{"alert":"held"},"z":1,"a":2}"#)
        try lab.simulator.updateDevice("phone-1", online: false)
        lab.push(to: lab.token("phone-1"), payload: #"{"aps":{"alert":"stored"},"z":1,"a":2}"#)
        try await store.flush()
        let app = try #require(lab.simulator.device("phone-1")?.app(TestPushlab.app))
        #expect(app.heldLowPriority.count == 1 && app.storedWhileOffline != nil)

        let fresh = TestPushlab()
        let reader = try fresh.recordingStore(path: folder.path("store.db"))
        let loaded = try reader.load()
        let original = lab.simulator.devices
        #expect(loaded.count == 1 && original.count == 1)
        // Everything comes back: apps, states, badges, tokens, Notification Center entries
        // with their payloads, keys in the order they were sent.
        #expect(loaded == original)
        try await reader.close()
        try await store.close()
    }

    /// A pass over many devices encodes them on every core; each still comes back as itself
    /// (none swapped with another, none missing), and a removal in the same pass stays one.
    @Test func aLargePassOfDevicesComesBackDeviceForDevice() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"))
        let phones = (0..<600).map { "phone-\($0)" }
        for phone in phones { try lab.addPhone(phone) }
        for (index, phone) in phones.enumerated() {
            try lab.simulator.updateDevice(phone, name: "iPhone \(index)", locked: index % 3 == 0)
            lab.push(to: lab.token(phone), payload: #"{"aps":{"alert":"hi","badge":\#(index % 50)}}"#)
        }
        try lab.simulator.removeDevice("phone-7")
        try await store.flush()

        let fresh = TestPushlab()
        let reader = try fresh.recordingStore(path: folder.path("store.db"))
        let loaded = try reader.load()
        #expect(loaded.count == 599)
        #expect(Dictionary(uniqueKeysWithValues: loaded.map { ($0.id, $0) }) == Dictionary(uniqueKeysWithValues: lab.simulator.devices.map { ($0.id, $0) }))
        #expect(!loaded.contains { $0.id == "phone-7" })
        try await reader.close()
        try await store.close()
    }

    @Test func reseedingFromAScenarioDropsTheSavedDevicesAndKeepsHistory() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let firstRun = TestPushlab()
        let first = try firstRun.recordingStore(path: path)
        #expect(try first.seededScenario() == nil)
        try first.reseed(fromScenario: "scenario-a")
        try firstRun.addPhone("phone-1")
        firstRun.push(to: firstRun.token("phone-1"))
        try await first.close()

        let secondRun = TestPushlab()
        let second = try secondRun.recordingStore(path: path)
        #expect(try second.seededScenario() == "scenario-a")
        try second.reseed(fromScenario: "scenario-b")
        #expect(try second.seededScenario() == "scenario-b")
        #expect(try second.load().isEmpty, "the saved devices are gone")
        #expect(try second.observations(deviceID: "phone-1").count > 0, "observations are history and stay")
        try await second.close()
    }

    @Test func notificationCenterEntriesAreSavedWithEveryBatchNotWithTheSnapshot() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let firstRun = TestPushlab()
        let first = try firstRun.recordingStore(path: path, flushInterval: .milliseconds(20))
        try firstRun.addPhone("phone-1")
        try await first.flush()  // the device row, with an empty Notification Center
        let written = first.statistics.itemsWritten
        firstRun.push(to: firstRun.token("phone-1"))
        // Ordinary batches commit the push's observations (every 20 ms); the next device snapshot
        // is seconds away, so only the batch can have saved the Notification Center entry.
        let deadline = ContinuousClock.now + .seconds(10)
        while first.statistics.itemsWritten == written || first.backlog > 0 {
            guard ContinuousClock.now < deadline else { Issue.record("no batch was written in 10 s"); break }
            try await Task.sleep(for: .milliseconds(5))
        }

        let secondRun = TestPushlab()
        let second = try secondRun.recordingStore(path: path)
        let reloaded = try #require(try second.load().first)
        #expect(reloaded.app(TestPushlab.app)?.notificationCenter.map(\.content.title) == ["Goal"])
        #expect(reloaded.app(TestPushlab.app)?.notificationCenter.first?.content.userInfo["match"] == .number(42))
        try await second.close()
        try await first.close()
    }

    /// The devices a scenario makes, with fixed tokens, as each run of the server installs them.
    private static func installScenario(in lab: TestPushlab) throws {
        try lab.simulator.replaceAll(with: ["phone-1", "phone-2", "phone-3", "phone-4"].enumerated().map { index, id in
            SimulatedDevice(id: id, apps: [AppInstall(bundleID: TestPushlab.app, deviceToken: String(repeating: "0", count: 63) + "\(index + 1)")])
        })
    }

    @Test func reseedingWritesNoneOfTheScenariosDevices() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let firstRun = TestPushlab()
        try Self.installScenario(in: firstRun)
        let first = try firstRun.recordingStore(path: path)
        try first.reseed(fromScenario: "scenario-a")
        #expect(firstRun.simulator.unsavedChangeCount == 0, "the scenario's devices are not changes")
        try await first.close()

        let secondRun = TestPushlab()
        try Self.installScenario(in: secondRun)
        let second = try secondRun.recordingStore(path: path)
        #expect(try second.load().isEmpty, "nothing saved: the scenario's devices stay as they are")
        #expect(secondRun.simulator.devices.map(\.id) == ["phone-1", "phone-2", "phone-3", "phone-4"])
        try await second.close()
    }

    @Test func aRestartPutsWhatChangedOnTopOfTheScenariosDevices() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let firstRun = TestPushlab()
        try Self.installScenario(in: firstRun)
        let first = try firstRun.recordingStore(path: path)
        try first.reseed(fromScenario: "scenario-a")
        try firstRun.simulator.updateDevice("phone-1", locked: true)
        try firstRun.simulator.removeDevice("phone-2")
        firstRun.push(to: firstRun.token("phone-3"))
        try firstRun.addPhone("phone-5")
        try await first.close()

        let secondRun = TestPushlab()
        try Self.installScenario(in: secondRun)
        let second = try secondRun.recordingStore(path: path)
        let loaded = try second.load()

        #expect(Set(loaded.map(\.id)) == ["phone-1", "phone-3", "phone-5"])
        #expect(secondRun.simulator.devices.map(\.id) == ["phone-1", "phone-3", "phone-4", "phone-5"], "the removed phone stays removed")
        #expect(secondRun.simulator.device("phone-1")?.locked == true)
        let phone3 = try #require(secondRun.simulator.device("phone-3")?.app(TestPushlab.app))
        #expect(phone3.badge == 3 && phone3.notificationCenter.map(\.content.title) == ["Goal"])
        #expect(secondRun.simulator.device("phone-4") == firstRun.simulator.device("phone-4"), "an untouched device is the scenario's")
        #expect(secondRun.world.token(firstRun.token("phone-5"))?.deviceID == "phone-5")
        #expect(secondRun.world.token(String(repeating: "0", count: 63) + "2") == nil, "the removed phone's token is gone")
        #expect(secondRun.simulator.unsavedChangeCount == 0, "nothing to write back")
        try await second.close()
    }

    @Test func entriesCommittedBeforeTheSnapshotJoinTheScenariosDevice() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let firstRun = TestPushlab()
        try Self.installScenario(in: firstRun)
        let first = try firstRun.recordingStore(path: path, flushInterval: .milliseconds(20))
        try first.reseed(fromScenario: "scenario-a")
        let written = first.statistics.itemsWritten
        firstRun.push(to: firstRun.token("phone-3"))
        // A batch commits the push's Notification Center entry; the device's snapshot (seconds
        // away) is never written: what a `kill -9` leaves.
        let deadline = ContinuousClock.now + .seconds(10)
        while first.statistics.itemsWritten == written || first.backlog > 0 {
            guard ContinuousClock.now < deadline else { Issue.record("no batch was written in 10 s"); break }
            try await Task.sleep(for: .milliseconds(5))
        }

        let secondRun = TestPushlab()
        try Self.installScenario(in: secondRun)
        let second = try secondRun.recordingStore(path: path)
        try second.load()
        #expect(secondRun.simulator.device("phone-3")?.app(TestPushlab.app)?.notificationCenter.map(\.content.title) == ["Goal"])
        try await second.close()
        try await first.close()
    }

    @Test func aStoreWhoseRowsAreEveryDeviceReplacesThemAll() async throws {
        // A store never seeded by this Pushlab (or written before its rows were changes): every
        // device is a row.
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let firstRun = TestPushlab()
        let first = try firstRun.recordingStore(path: path)
        try firstRun.addPhone("phone-1")
        try await first.close()

        let secondRun = TestPushlab()
        try Self.installScenario(in: secondRun)
        let second = try secondRun.recordingStore(path: path)
        #expect(try second.load().map(\.id) == ["phone-1"])
        #expect(secondRun.simulator.devices.map(\.id) == ["phone-1"], "the rows are all the devices there were")
        try await second.close()
    }
}

/// A push stored for an offline phone changes what APNs holds for it: its device is saved with
/// the next batch, not seconds later with the other snapshots, so a crash loses no push a phone
/// has taken.
@Suite struct HeldPushSnapshotTests {
    /// Lets a background task use the first run while the test reads the second (each run is
    /// used by one side only).
    private struct Handed<Value>: @unchecked Sendable { let value: Value }

    @Test func aPushStoredForAnOfflinePhoneIsSavedWithTheNextBatchDuringALoad() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let firstRun = TestPushlab()
        try firstRun.addPhone("phone")
        try firstRun.addPhone("busy")
        let first = try firstRun.recordingStore(path: path, flushInterval: .milliseconds(20))
        try await first.flush()
        _ = try firstRun.simulator.updateDevice("phone", online: false)
        let response = try #require(firstRun.push(to: firstRun.token("phone")))
        #expect(response.status == 200)
        #expect(firstRun.simulator.hasUnsavedHeldPushes)

        // A load on another phone keeps every batch busy: the ordinary snapshots (every 5 s, or
        // once the store is quiet) never come before the "crash" (reading the file meanwhile).
        let stop = Atomic<Bool>(false)
        let handed = Handed(value: (firstRun, firstRun.token("busy")))
        let load = Task.detached {
            while !stop.load(ordering: .relaxed) {
                handed.value.0.push(to: handed.value.1)
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        let deadline = ContinuousClock.now + .seconds(3)
        while firstRun.simulator.hasUnsavedHeldPushes, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(!firstRun.simulator.hasUnsavedHeldPushes, "the device was taken within 3 s")
        let written = first.statistics.itemsWritten
        while first.statistics.itemsWritten == written, ContinuousClock.now < deadline + .seconds(3) {
            try await Task.sleep(for: .milliseconds(5))
        }

        let secondRun = TestPushlab()
        try secondRun.addPhone("phone")
        try secondRun.addPhone("busy")
        let second = try secondRun.recordingStore(path: path)
        try second.load()
        stop.store(true, ordering: .relaxed)
        await load.value
        let device = try #require(secondRun.simulator.device("phone"))
        #expect(device.online == false)
        #expect(device.app(TestPushlab.app)?.storedWhileOffline?.apnsID == response.apnsID)
        try await second.close()
        try await first.close()
    }
}
