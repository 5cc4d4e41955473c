import PushlabCore
import PushlabSimulator
import PushlabStore
import Testing

@Suite("Requests: the APNs request log, saved")
struct RequestStoreTests {
    @Test func everyRequestIsSavedNewestFirstAndFilters() async throws {
        let folder = try TemporaryDirectory()
        let lab = TestPushlab()
        let store = try lab.recordingStore(path: folder.path("store.db"), flushInterval: .seconds(3600))
        try lab.addPhone("phone-1")
        let token = lab.token("phone-1")

        let accepted = try #require(lab.push(to: token))
        lab.push(to: TestPushlab.unknownToken)
        try lab.simulator.uninstall(TestPushlab.app, from: "phone-1")
        lab.push(to: token)

        // The same answers buffered and from the file.
        for state: Comment in ["buffered", "written"] {
            let all = try store.requests()
            #expect(all.map(\.status) == [410, 400, 200], state)
            #expect(all == lab.requestLog.entries(limit: 100), "field for field what the log holds (\(state))")
            #expect(try store.requests(deviceToken: token).map(\.status) == [410, 200], state)
            #expect(try store.requests(status: 400).map(\.reason) == [.badDeviceToken], state)
            #expect(try store.requests(reason: "Unregistered").map(\.deviceToken) == [token], state)
            #expect(try store.requests(limit: 1).map(\.status) == [410], state)
            try await store.flush()
        }

        let saved = try #require(try store.requests(status: 200).first)
        #expect(saved.apnsID == accepted.apnsID && saved.topic == TestPushlab.app && saved.pushType == "alert")
        #expect(saved.environment == .development && saved.connectionID == 1 && saved.time == lab.clock.now())
        try await store.close()
    }

    /// The live request log numbers on after the store's saved requests, so the two agree and a
    /// number is never used twice.
    @Test func numberingContinuesInTheNextRun() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("store.db")
        let firstRun = TestPushlab()
        let first = try firstRun.recordingStore(path: path)
        firstRun.push(to: TestPushlab.unknownToken)
        firstRun.push(to: TestPushlab.unknownToken)
        try await first.close()

        let secondRun = TestPushlab()
        let second = try secondRun.recordingStore(path: path)
        secondRun.push(to: TestPushlab.unknownToken, topic: TestPushlab.news)
        try await second.flush()

        let requests = try second.requests()
        #expect(requests.map(\.sequence) == [3, 2, 1])
        #expect(requests.map(\.topic) == [TestPushlab.news, TestPushlab.app, TestPushlab.app])
        #expect(secondRun.requestLog.entries().map(\.sequence) == [3], "the live log is not reloaded, and numbers on")
        try await second.close()
    }
}
