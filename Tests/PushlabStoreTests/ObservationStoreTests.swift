import PushlabCore
import PushlabSimulator
import PushlabStore
import Testing

@Suite("Observations: saved as recorded, read back with filters")
struct ObservationStoreTests {
    /// Drives one phone through every kind of observation: delivery, banner, sound, badge,
    /// Notification Center, callbacks and app states, a dropped background push, low power
    /// mode's throttling, and APNs storing (and replacing) a push while the phone is offline.
    static func driveEveryKind(_ lab: TestPushlab, phone: String) throws {
        let token = lab.token(phone)
        #expect(lab.push(to: token)?.status == 200)
        try lab.simulator.interact(.tapNotification(bundleID: TestPushlab.app, notificationID: nil), on: phone)
        lab.push(to: token, type: "background", priority: 10, payload: #"{"aps":{"content-available":1}}"#)
        try lab.simulator.changeApp(TestPushlab.app, on: phone, to: .background)
        try lab.simulator.updateDevice(phone, lowPowerMode: true)
        lab.push(to: token, priority: 5)
        try lab.simulator.updateDevice(phone, online: false, lowPowerMode: false)
        lab.push(to: token, payload: #"{"aps":{"alert":"first"}}"#)
        lab.push(to: token, payload: #"{"aps":{"alert":"second"}}"#)
        try lab.simulator.advanceClock(milliseconds: 60_000)
        try lab.simulator.updateDevice(phone, online: true)
        // A Live Activity the app starts and ends itself.
        try lab.simulator.updateApp(TestPushlab.app, on: phone) { $0.liveActivities = LiveActivitySupport() }
        try lab.simulator.changeApp(TestPushlab.app, on: phone, to: .foreground)
        let activity = try lab.simulator.startActivity(
            LiveActivity(id: "", attributesType: "Score", attributes: .object([]), contentState: .object([("home", .number(1))]), origin: .app, startedAt: 0),
            app: TestPushlab.app, on: phone
        )
        try lab.simulator.endActivity(activity.id, app: TestPushlab.app, on: phone, dismissal: nil)
        // A Notification Service Extension's result is a system observation.
        try lab.simulator.updateApp(TestPushlab.app, on: phone) { $0.serviceExtension = true }
        lab.push(to: token, payload: #"{"aps":{"alert":"secret","mutable-content":1}}"#)
        // An app that calls its backend at launch; with no HTTP client connected the request is recorded as not sent.
        try lab.simulator.updateApp(TestPushlab.app, on: phone) {
            $0.provider = ProviderBackend(baseURL: "http://127.0.0.1:9", requests: [ProviderRequestTemplate(event: .launch, path: "/hello")])
        }
        try lab.simulator.changeApp(TestPushlab.app, on: phone, to: .terminateBySystem)
        try lab.simulator.changeApp(TestPushlab.app, on: phone, to: .foreground)
    }

    /// A run of queued pushes hands several devices' observations over in one call; two
    /// threads' runs interleave. Each device's observations come back in sequence order, and an
    /// empty batch adds nothing.
    @Test func batchesOfSeveralDevicesComeBackInSequenceOrder() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"))
        store.record(batches: [[.badge(1, device: "a"), .badge(2, device: "a")], [], [.badge(5, device: "b")]])
        store.record([.badge(3, device: "c"), .badge(4, device: "c")])
        store.record(batches: [[.badge(6, device: "a")], [.badge(7, device: "b"), .badge(8, device: "b")]])
        try await store.flush()

        #expect(try store.observations(limit: 100).map(\.sequence) == Array(1...8))
        #expect(try store.observations(deviceID: "a", limit: 100).map(\.sequence) == [1, 2, 6])
        #expect(try store.observations(deviceID: "b", limit: 100).map(\.sequence) == [5, 7, 8])
        #expect(store.statistics.itemsWritten == 8)
        try await store.close()
    }

    /// A batch of several chunks: every chunk comes back in order, Notification Center entries
    /// with their shared content among them.
    @Test func aBatchOfManyChunksComesBackObservationForObservation() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let reference = InMemoryObservationLog()
        lab.simulator.addSink(reference)
        for phone in 0..<20 { try lab.addPhone("phone-\(phone)") }
        for round in 0..<100 {
            for phone in 0..<20 {
                let payload = round % 2 == 0 ? #"{"aps":{"alert":"even","badge":1}}"# : #"{"aps":{"alert":{"title":"odd","body":"\#(round)"}}}"#
                lab.push(to: lab.token("phone-\(phone)"), payload: payload)
            }
        }
        let recorded = reference.observations()
        #expect(recorded.count > 3 * 2_048, "more than three chunks of 2,048")

        // A store of its own, handed everything at once: the writer's first take is one batch.
        let store = try PushlabStore(path: folder.path("store.db"), devices: TestPushlab().simulator, busyRate: nil)
        store.record(batches: [recorded])
        try await store.flush()
        #expect(try store.observations(limit: 100_000) == recorded)
        #expect(try store.observations(deviceID: "phone-3", limit: 100_000) == recorded.filter { $0.deviceID == "phone-3" })
        try await store.close()
    }

    /// Notification ids of every form come back as their text: a push's id in either case, one
    /// of digits only, mixed case (no canonical form), a local identifier, none.
    @Test func notificationIDsOfEveryFormComeBackAsTheirText() async throws {
        let folder = try TemporaryDirectory()
        let store = try TestPushlab().recordingStore(path: folder.path("store.db"))
        let sample = "8E1B6B5E-0C6B-4A53-9C8E-4B6B1E2D3F40"
        let ids: [APNsID?] = [
            APNsID(CanonicalUUID(high: 0x8E1B_6B5E_0C6B_4A53, low: 0x9C8E_4B6B_1E2D_3F40, isLowercase: false)),
            APNsID(sample.lowercased()),
            APNsID(CanonicalUUID(high: 0x1234_5678_9012_3456, low: 0x8901_2345_6789_0123, isLowercase: true)),
            APNsID("8E1B6B5E-0C6B-4A53-9C8E-4b6b1e2d3f40"),
            APNsID("reminder-7"),
            nil,
        ]
        let observations = ids.enumerated().map { index, id in
            Observation(
                sequence: Int64(index + 1), time: 1_767_225_600_000, deviceID: "phone", bundleID: TestPushlab.app, notificationIDValue: id,
                event: .badge(index)
            )
        }
        store.record(observations)
        try await store.flush()
        let read = try store.observations(limit: 100)
        #expect(read == observations)
        #expect(read.map(\.notificationID) == ids.map { $0?.text })
        #expect(read[2].notificationID == "12345678-9012-3456-8901-234567890123")
        try await store.close()
    }

    @Test func everyKindComesBackExactlyAsTheSimulatorRecordedIt() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let reference = InMemoryObservationLog()
        lab.simulator.addSink(reference)
        let store = try lab.recordingStore(path: folder.path("store.db"))
        try lab.addPhone("phone-1")

        try Self.driveEveryKind(lab, phone: "phone-1")
        try await store.flush()

        let recorded = reference.observations()
        #expect(Set(recorded.map(\.kind)) == Set(ObservationKind.allCases))
        #expect(store.backlog == 0, "after the flush every row comes from the file")
        #expect(try store.observations(limit: 10_000) == recorded)
        try await store.close()
    }

    @Test func filtersSinceAndLimitAnswerAsTheInMemoryLogDoes() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let reference = InMemoryObservationLog()
        lab.simulator.addSink(reference)
        // An hour between batches: only `flush()` writes, so each check below knows what is
        // in the file and what is still buffered.
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .seconds(3600))
        try lab.addPhone("phone-1", apps: [TestPushlab.app, TestPushlab.news])
        try lab.addPhone("phone-2")

        lab.push(to: lab.token("phone-1"))
        lab.push(to: lab.token("phone-1", TestPushlab.news), topic: TestPushlab.news)
        try await store.flush()
        lab.push(to: lab.token("phone-2"))
        try lab.simulator.interact(.tapNotification(bundleID: TestPushlab.app, notificationID: nil), on: "phone-2")
        lab.push(to: lab.token("phone-1"), payload: #"{"aps":{"alert":"again","badge":7}}"#)

        let middle = reference.observations()[reference.observations().count / 2].sequence
        func checkEveryFilter(_ state: Comment) throws {
            #expect(try store.observations(limit: 1000) == reference.observations(), state)
            #expect(try store.observations(deviceID: "phone-2", limit: 1000) == reference.observations(device: "phone-2"), state)
            #expect(try store.observations(bundleID: TestPushlab.news, limit: 1000) == reference.observations(bundleID: TestPushlab.news), state)
            #expect(try store.observations(kind: .badge, limit: 1000) == reference.observations(kind: .badge), state)
            #expect(try store.observations(since: middle, limit: 1000) == reference.observations(since: middle), state)
            #expect(try store.observations(deviceID: "phone-1", since: middle, bundleID: TestPushlab.app, kind: .badge, limit: 1000)
                == reference.observations(device: "phone-1", since: middle, bundleID: TestPushlab.app, kind: .badge), state)
            #expect(try store.observations(since: middle, limit: 3) == reference.observations(since: middle, limit: 3), state)
            #expect(try store.observations(limit: 0).isEmpty, state)
        }

        #expect(store.backlog > 0)
        try checkEveryFilter("half in the file, half buffered")
        #expect(try store.observations(kind: .badge, limit: 1000).map(\.event) == [.badge(3), .badge(3), .badge(3), .badge(7)])
        try await store.flush()
        #expect(store.backlog == 0)
        try checkEveryFilter("all in the file")
        try await store.close()
    }
}
