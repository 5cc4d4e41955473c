// `@testable` only because `AcceptedPush` (what the APNs layer hands the pipeline) has no
// public initializer; the tests otherwise use the public API.
import Foundation
@testable import PushlabCore
import PushlabDelivery
import PushlabSimulator
import Synchronization
import Testing

/// Names and times the pipeline's tests share.
enum Fixture {
    static let deviceID = "iphone-1"
    static let bundleID = "com.example.app"
    /// 2026-01-01T00:00:00Z.
    static let start: EpochMilliseconds = 1_767_225_600_000
    static let second: Int64 = 1000
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let alertPayload = #"{"aps":{"alert":{"title":"Hello","body":"World"},"sound":"default","badge":7},"orderID":42}"#
    static let silentPayload = #"{"aps":{"content-available":1},"sync":"inbox"}"#
}

/// One simulator with a manual clock, one device with one app and an in-memory observation log,
/// behind a `DeliveryPipeline`: queued (as `pushlab serve` runs it) when `queue` gives a
/// capacity, in which case `wakes` counts the calls that would wake a worker.
final class PipelineHarness {
    let clock = ManualClock(Fixture.start)
    let world = APNsWorld()
    let simulator: DeviceSimulator
    let pipeline: DeliveryPipeline
    let log = InMemoryObservationLog()
    let deviceID = Fixture.deviceID
    /// The last observation of the device's creation: its running apps launched then.
    let created: Int64
    private var pushCount = 0
    private let wakeCount = Counter()

    init(state: AppState = .background, queue: Int? = nil, pushLog: (any AcceptedPushLog)? = nil) throws {
        simulator = DeviceSimulator(world: world, clock: clock, tokenSeed: 7)
        simulator.addSink(log)
        pipeline = DeliveryPipeline(simulator: simulator)
        if let queue { pipeline.queueDeliveries(capacity: queue, log: pushLog) { [wakeCount] in wakeCount.add() } }
        try simulator.addDevice(SimulatedDevice(id: deviceID, apps: [AppInstall(bundleID: Fixture.bundleID, deviceToken: "", state: state)]))
        created = simulator.lastSequence
    }

    var wakes: Int { wakeCount.value }
    var now: EpochMilliseconds { clock.now() }

    func app() throws -> AppInstall { try #require(simulator.device(deviceID)?.app(Fixture.bundleID)) }

    func token() throws -> String { try app().deviceToken }

    /// Everything observed, after delivering what is queued.
    var all: [Observation] {
        simulator.settle()
        return log.observations(device: deviceID)
    }

    /// What the sinks have seen since the device was created, without delivering anything.
    var recorded: [Observation] { log.observations(device: deviceID, since: created) }

    /// A push as APNs accepted it for the app's token, handed to the pipeline; its apns-id.
    @discardableResult
    func push(_ payload: String, type: APNsPushType, priority: Int, collapseID: String? = nil) throws -> String {
        pushCount += 1
        let digits = String(pushCount)
        let apnsID = "A0000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
        let token = try token()
        pipeline.accept(AcceptedPush(
            apnsID: APNsID(apnsID), receivedAt: now, environment: .development, deviceToken: token, registration: world.token(token),
            topic: Fixture.bundleID, bundleID: Fixture.bundleID, pushType: type, priority: priority, expiration: nil, collapseID: collapseID,
            payload: try JSONParser.parse(payload), rawPayload: Array(payload.utf8), isDeliverable: true, connectionID: 1
        ))
        return apnsID
    }

    @discardableResult
    func alert(collapseID: String? = nil) throws -> String { try push(Fixture.alertPayload, type: .alert, priority: 10, collapseID: collapseID) }

    @discardableResult
    func silent() throws -> String { try push(Fixture.silentPayload, type: .background, priority: 5) }

    /// An alert for `token` as the APNs layer hands it over, without reading the device first.
    func acceptedAlert(to token: String, number: UInt64 = 0) -> AcceptedPush {
        AcceptedPush(
            apnsID: APNsID(CanonicalUUID(high: 1 &+ number, low: UInt64(now), isLowercase: false)), receivedAt: now,
            environment: .development, deviceToken: token, registration: world.token(token), topic: Fixture.bundleID,
            bundleID: Fixture.bundleID, pushType: .alert, priority: 10, expiration: nil, collapseID: nil,
            payload: try? JSONParser.parse(Fixture.alertPayload), rawPayload: Array(Fixture.alertPayload.utf8),
            isDeliverable: true, connectionID: 1
        )
    }
}

final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

extension Array where Element == Observation {
    var delivered: [Observation] { filter { $0.kind == .delivered } }

    func about(_ notificationID: String) -> [Observation] { filter { $0.notificationID == notificationID } }
}
