@testable import PushlabCore
import PushlabDelivery
import PushlabSimulator
import Synchronization
import Testing

/// Pushes a log holds already (a cluster node's reads of the engine) go through the same
/// pipeline as accepted ones: in order with what came before, not logged again, and taken at
/// their positions with the observations their phones made.
@Suite struct LoggedDeliveryTests {
    /// Hears every run, with the positions it took.
    final class TakingSink: ObservationSink, Sendable {
        private let state = Mutex<(observations: Int, taking: [LoggedPushPosition])>((0, []))

        func record(_ observations: [Observation]) { state.withLock { $0.observations += observations.count } }

        func record(batches: [[Observation]], taking: [LoggedPushPosition]) {
            state.withLock { state in
                state.observations += batches.reduce(0) { $0 + $1.count }
                state.taking += taking
            }
        }

        /// The furthest position taken in `partition`.
        func takenThrough(_ partition: Int) -> Int64? {
            state.withLock { $0.taking.filter { $0.partition == partition }.map(\.offset).max() }
        }
    }

    static func logged(_ h: PipelineHarness, offsets: ClosedRange<Int64>, partition: Int = 3) throws -> [LoggedPush] {
        let token = try h.token()
        return offsets.map { offset in
            LoggedPush(position: LoggedPushPosition(partition: partition, offset: offset), push: h.acceptedAlert(to: token, number: UInt64(offset)))
        }
    }

    @Test(arguments: [nil, 100] as [Int?])
    func loggedPushesAreDeliveredAndTakenAtTheirPositions(queue: Int?) throws {
        let log = QueuedDeliveryLogTests.RecordingLog()
        let h = try PipelineHarness(queue: queue, pushLog: queue == nil ? nil : log)
        let sink = TakingSink()
        h.simulator.addSink(sink)
        let first = try h.alert()
        h.pipeline.deliver(logged: try Self.logged(h, offsets: 1...3), resumed: false)

        #expect(log.appended == (queue == nil ? [] : [first]), "what a log holds is not logged again")
        let delivered = h.all.delivered
        #expect(delivered.count == 4, "each push reached the phone once")
        #expect(delivered.first?.notificationID == first, "after what was handed over before them")
        #expect(delivered.allSatisfy { !$0.afterRestart }, "read, not resumed")
        #expect(sink.takenThrough(3) == 3, "taken through the last position")
    }

    @Test func resumedLoggedPushesSayAfterRestart() throws {
        let h = try PipelineHarness(queue: 100)
        h.pipeline.deliver(logged: try Self.logged(h, offsets: 1...2), resumed: true)
        let delivered = h.all.delivered
        #expect(delivered.count == 2 && delivered.allSatisfy(\.afterRestart))
    }

    @Test(arguments: [nil, 100] as [Int?])
    func aLoggedBroadcastIsTakenAtItsPositionOnceItRan(queue: Int?) throws {
        let h = try PipelineHarness(queue: queue)
        let sink = TakingSink()
        h.simulator.addSink(sink)
        h.pipeline.deliver(logged: try Self.logged(h, offsets: 1...2), resumed: false)
        let channel = BroadcastChannel(id: "Y2hhbm5lbA==", bundleID: Fixture.bundleID, environment: .development, storagePolicy: .noStorage, createdAt: 0)
        let payload = #"{"aps":{"event":"update","timestamp":1767225700,"content-state":{}}}"#
        let broadcast = AcceptedBroadcast(
            requestID: APNsID("B0000000-0000-4000-8000-000000000001"), receivedAt: h.now, environment: .development, bundleID: Fixture.bundleID,
            channel: channel, priority: 10, expiration: nil, payload: try JSONParser.parse(payload), payloadBytes: PayloadBytes(Array(payload.utf8)),
            connectionID: 1
        )
        let asked = Mutex<[String]>([])
        h.pipeline.accept(LoggedBroadcast(broadcast, devices: { id in asked.withLock { $0.append(id) }; return false }, position: LoggedPushPosition(partition: 3, offset: 3)))
        if queue != nil { #expect(sink.takenThrough(3) ?? 0 < 3, "queued, it waits its turn") }
        _ = h.all
        #expect(sink.takenThrough(3) == 3, "taken after the pushes before it")
        #expect(asked.withLock { $0 } == [h.deviceID], "the broadcast asked which of the phones it may reach")
    }
}
