import PushlabCore
import PushlabSimulator
@testable import PushlabStore
import Testing

/// A position of the log of accepted pushes is committed with the observations made before it,
/// never ahead of them: a restart finds both or neither.
@Suite struct AcceptedPushTakingTests {
    private func observations(_ first: Int64, count: Int) -> [Observation] {
        (0..<Int64(count)).map {
            Observation(sequence: first + $0, time: 0, deviceID: "phone", bundleID: "app", notificationID: nil, event: .badge(1))
        }
    }

    private func position(_ offset: Int64) -> LoggedPushPosition { LoggedPushPosition(partition: 0, offset: offset) }

    @Test func aTakingWaitsForTheObservationsBeforeIt() {
        var pending = PendingWrites()
        pending.append(batches: [observations(1, count: 10)], taking: [position(1)])
        pending.append(batches: [observations(11, count: 10)], taking: [position(2)])
        // The first chunk only: the first taking goes with it, the second waits.
        let first = pending.takeBatch(observationLimit: 10)
        #expect(first.observationCount == 10 && first.readyTakings == [position(1)])
        // A held batch takes no observations, and no takings either.
        let held = pending.takeBatch(observationLimit: 0)
        #expect(held.observationCount == 0 && held.readyTakings.isEmpty)
        let second = pending.takeBatch(observationLimit: nil)
        #expect(second.observationCount == 10 && second.readyTakings == [position(2)])
        #expect(pending.isEmpty)
    }

    @Test func aTakingWithNoObservationsIsReadyAtOnceUnlessSomeWait() {
        var pending = PendingWrites()
        pending.append(batches: [], taking: [position(1)])
        pending.append(batches: [observations(1, count: 5)], taking: [])
        pending.append(batches: [], taking: [position(2)])
        let batch = pending.takeBatch(observationLimit: 0)
        // position 1 came before any observation; position 2 after five that are not taken.
        #expect(batch.readyTakings == [position(1)])
        #expect(pending.takeBatch(observationLimit: nil).readyTakings == [position(2)])
    }

    @Test func shedObservationsStillCommitTheirTakings() {
        var pending = PendingWrites()
        pending.append(batches: [observations(1, count: 10)], taking: [position(4)])
        pending.append(batches: [observations(11, count: 10)], taking: [position(9)])
        let shed = pending.shedObservations(keeping: 10)
        #expect(shed.count == 10)
        #expect(pending.takeBatch(observationLimit: 0).readyTakings == [position(4)])
    }

    @Test func aFailedBatchPutBackTakesItsTakingsWithItsObservationsAgain() {
        var pending = PendingWrites()
        pending.append(batches: [observations(1, count: 10)], taking: [position(1)])
        let failed = pending.takeBatch(observationLimit: nil)
        pending.append(batches: [], taking: [position(2)])
        pending.append(batches: [observations(11, count: 10)], taking: [position(3)])
        pending.putBack(failed)
        // Nothing is ready before the older observations are taken again.
        #expect(pending.takeBatch(observationLimit: 0).readyTakings.isEmpty)
        let retried = pending.takeBatch(observationLimit: 10)
        #expect(retried.observationCount == 10 && retried.readyTakings == [position(1), position(2)])
        #expect(pending.takeBatch(observationLimit: nil).readyTakings == [position(3)])
    }

    @Test func theLogsPushesGoWithEveryBatchEvenAHeldOne() {
        var pending = PendingWrites()
        let push = AcceptedPush(
            apnsID: APNsID("0b1f8a3c-5d2e-4f60-8a7b-9c0d1e2f3a4b"), receivedAt: 1, environment: .development, deviceToken: "ab",
            registration: DeviceTokenRecord(token: "ab", bundleID: "app", environment: .development, deviceID: "phone"), topic: "app",
            bundleID: "app", pushType: .alert, priority: 10, expiration: nil, collapseID: nil, payload: nil, rawPayload: [],
            isDeliverable: true, connectionID: 1
        )
        pending.append(pushes: [push, push], at: .run(partition: 0, first: 1, count: 2))
        let held = pending.takeBatch(observationLimit: 0)
        #expect(held.pushCount == 2)
        #expect(pending.isEmpty)
    }
}
