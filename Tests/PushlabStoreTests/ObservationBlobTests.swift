import PushlabCore
import PushlabSimulator
import PushlabStore
import Testing

@Suite("Observations as one blob, for another keeper of a history")
struct ObservationBlobTests {
    /// What two phones observe of a few pushes: banners, sounds, badges, Notification Center
    /// entries, deliveries, and one observation made after a restart.
    private func observationsOfAFewPushes() throws -> [Observation] {
        let lab = TestPushlab()
        let log = InMemoryObservationLog()
        _ = lab.simulator.addSink(log)
        try lab.addPhone("phone-1", apps: [TestPushlab.app, TestPushlab.news])
        try lab.addPhone("phone-2")
        #expect(lab.push(to: lab.token("phone-1"))?.status == 200)
        #expect(lab.push(to: lab.token("phone-1", TestPushlab.news), topic: TestPushlab.news, payload: #"{"aps":{"alert":{"title":"Ünïcode ✓","body":"b"},"sound":"x.caf"},"k":[1,2.5]}"#)?.status == 200)
        #expect(lab.push(to: lab.token("phone-2"), type: "background", priority: 5, payload: #"{"aps":{"content-available":1}}"#)?.status == 200)
        var observations = log.observations()
        observations[observations.count - 1].afterRestart = true
        return observations
    }

    @Test func everyObservationComesBackAsItWasInItsOrder() throws {
        let observations = try observationsOfAFewPushes()
        #expect(observations.count >= 8)
        #expect(observations.contains { $0.kind == .notificationCenter })
        let blob = ObservationBlob.encode(observations)
        #expect(try ObservationBlob.decode(blob) == observations)
    }

    @Test func theBlobIsSmallerThanTheObservationsJSON() throws {
        let observations = try observationsOfAFewPushes()
        var writer = JSONWriter()
        writer.value(.array(observations.map(\.json)))
        let blob = ObservationBlob.encode(observations)
        #expect(blob.count * 2 < writer.bytes.count, "\(blob.count) bytes against \(writer.bytes.count) of JSON")
    }

    @Test func anEmptyBatchAndDamagedBytesAreReadable() throws {
        #expect(try ObservationBlob.decode(ObservationBlob.encode([])).isEmpty)
        let blob = ObservationBlob.encode(try observationsOfAFewPushes())
        let error = #expect(throws: StoreError.self) { try ObservationBlob.decode(Array(blob.dropLast(3))) }
        #expect(error?.description.contains("saved observations") == true)
        #expect(throws: StoreError.self) { try ObservationBlob.decode([0x7f, 0x01]) }
    }
}
