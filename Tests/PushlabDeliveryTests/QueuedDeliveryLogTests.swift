@testable import PushlabCore
import PushlabDelivery
import PushlabSimulator
import Synchronization
import Testing

/// The delivery queue logs every push it is handed (`AcceptedPushLog`) and marks it taken once its
/// phone has taken it; pushes resumed from the log after a restart say so in every observation.
@Suite struct QueuedDeliveryLogTests {
    /// A log that remembers what it was told; as a sink too when `hearsTakings`.
    final class RecordingLog: AcceptedPushLog, @unchecked Sendable {
        let partitions = DevicePartitions(count: 1)
        var durability: AcceptedPushLogDurability { .process }
        private let state = Mutex<(appended: [String], takenThrough: Int64, last: Int64)>(([], 0, 0))

        func append(_ pushes: [AcceptedPush]) -> LoggedPositions {
            state.withLock { state in
                state.appended += pushes.map(\.apnsIDValue.text)
                let first = state.last + 1
                state.last += Int64(pushes.count)
                return .run(partition: 0, first: first, count: pushes.count)
            }
        }

        func markTaken(through position: LoggedPushPosition) {
            state.withLock { $0.takenThrough = max($0.takenThrough, position.offset) }
        }

        func untaken() -> [LoggedPush] { [] }

        var appended: [String] { state.withLock { $0.appended } }
        var takenThrough: Int64 { state.withLock { $0.takenThrough } }
    }

    /// A log that is also a sink: it hears of takings with the observations, and only so.
    final class SinkLog: AcceptedPushLog, ObservationSink, @unchecked Sendable {
        let partitions = DevicePartitions(count: 1)
        var durability: AcceptedPushLogDurability { .process }
        private let state = Mutex<(last: Int64, told: [[LoggedPushPosition]], markedDirectly: Int, observations: Int)>((0, [], 0, 0))

        func append(_ pushes: [AcceptedPush]) -> LoggedPositions {
            state.withLock { state in
                let first = state.last + 1
                state.last += Int64(pushes.count)
                return .run(partition: 0, first: first, count: pushes.count)
            }
        }

        func markTaken(through position: LoggedPushPosition) { state.withLock { $0.markedDirectly += 1 } }
        func untaken() -> [LoggedPush] { [] }
        func record(_ observations: [Observation]) { state.withLock { $0.observations += observations.count } }
        func record(batches: [[Observation]], taking: [LoggedPushPosition]) {
            state.withLock { state in
                state.observations += batches.reduce(0) { $0 + $1.count }
                state.told.append(taking)
            }
        }

        var told: [[LoggedPushPosition]] { state.withLock { $0.told } }
        var markedDirectly: Int { state.withLock { $0.markedDirectly } }
    }

    @Test func everyQueuedPushIsLoggedAndTakenOnceDelivered() throws {
        let log = RecordingLog()
        let h = try PipelineHarness(queue: 100, pushLog: log)
        let first = try h.alert()
        // Logged when queued; not taken before its phone has it.
        #expect(log.appended == [first])
        #expect(log.takenThrough == 0)
        // Reading the device (as the next push does) delivers the first.
        let second = try h.silent()
        #expect(log.appended == [first, second])
        #expect(log.takenThrough == 1)
        _ = h.all
        #expect(log.takenThrough == 2)
    }

    @Test func aLogThatIsASinkHearsOfTakingsWithTheObservations() throws {
        let log = SinkLog()
        let h = try PipelineHarness(queue: 100, pushLog: log)
        h.simulator.addSink(log)
        try h.alert()
        try h.alert()
        _ = h.all
        #expect(log.told.flatMap { $0 }.map(\.offset).max() == 2)
        #expect(log.markedDirectly == 0)
    }

    @Test func resumedPushesAreObservedAfterARestartAndKeepTheirPlace() throws {
        let log = RecordingLog()
        let h = try PipelineHarness(queue: 100, pushLog: log)
        // What a restart finds in the log: two pushes at offsets 7 and 8 of the last run.
        let token = try h.token()
        let resumed = (7...8).map { offset in
            LoggedPush(position: LoggedPushPosition(partition: 0, offset: Int64(offset)), push: AcceptedPush(
                apnsID: APNsID("B0000000-0000-4000-8000-00000000000\(offset)"), receivedAt: h.now, environment: .development,
                deviceToken: token, registration: h.world.token(token), topic: Fixture.bundleID, bundleID: Fixture.bundleID, pushType: .alert,
                priority: 10, expiration: nil, collapseID: nil, payload: nil, rawPayload: Array(Fixture.alertPayload.utf8),
                isDeliverable: true, connectionID: 1
            ))
        }
        h.pipeline.resume(resumed)
        let fresh = try h.alert()
        let observed = h.all.filter { $0.notificationID != nil }
        let resumedIDs = Set(resumed.map(\.push.apnsIDValue.text))
        let ofResumed = observed.filter { resumedIDs.contains($0.notificationID!) }
        #expect(ofResumed.contains { $0.kind == .delivered })
        #expect(ofResumed.allSatisfy { $0.afterRestart })
        #expect(observed.about(fresh).allSatisfy { !$0.afterRestart })
        // Resumed pushes come first, and are not logged again.
        #expect(observed.first.map { resumedIDs.contains($0.notificationID!) } == true)
        #expect(log.appended == [fresh])
        #expect(log.takenThrough == 8)
    }

    /// A device saved after its phone took a push (stored while offline), with the crash before
    /// the taking was committed: the push is resumed, and the device does not receive it again.
    @Test func aResumedPushTheDeviceAlreadyHoldsIsNotReceivedTwice() throws {
        let log = RecordingLog()
        let h = try PipelineHarness(queue: 100, pushLog: log)
        _ = try h.simulator.updateDevice(h.deviceID, online: false)
        let stored = try h.alert()
        let held = try #require(try h.app().storedWhileOffline)
        #expect(held.apnsID == stored)
        let before = h.all.about(stored)
        #expect(before.map(\.kind) == [.stored])

        let token = try h.token()
        let again = AcceptedPush(
            apnsID: held.apnsIDValue, receivedAt: held.receivedAt, environment: .development, deviceToken: token,
            registration: h.world.token(token), topic: Fixture.bundleID, bundleID: Fixture.bundleID, pushType: .alert, priority: 10,
            expiration: nil, collapseID: nil, payload: nil, rawPayload: Array(Fixture.alertPayload.utf8), isDeliverable: true, connectionID: 1
        )
        h.pipeline.resume([LoggedPush(position: LoggedPushPosition(partition: 0, offset: 1), push: again)])
        #expect(h.all.about(stored) == before, "no second `stored`, no replaced one")
        #expect(try h.app().storedWhileOffline?.apnsID == stored)
        #expect(log.takenThrough == 1, "still marked taken")

        // A resumed push the device does not hold yet is received as any push is.
        let other = AcceptedPush(
            apnsID: APNsID("C0000000-0000-4000-8000-000000000001"), receivedAt: h.now, environment: .development, deviceToken: token,
            registration: h.world.token(token), topic: Fixture.bundleID, bundleID: Fixture.bundleID, pushType: .alert, priority: 10,
            expiration: nil, collapseID: nil, payload: nil, rawPayload: Array(Fixture.alertPayload.utf8), isDeliverable: true, connectionID: 1
        )
        h.pipeline.resume([LoggedPush(position: LoggedPushPosition(partition: 0, offset: 2), push: other)])
        let resumed = h.all.about(other.apnsIDValue.text)
        #expect(resumed.map(\.kind) == [.stored])
        #expect(resumed.allSatisfy { $0.afterRestart })
    }
}
