import Foundation
@testable import PushlabSimulator
import PushlabCore
import Synchronization
import Testing

/// What a store needs to put a run back on top of a scenario's devices: `restore` replaces,
/// adds and removes only the devices it is given, `discardChanges` forgets what changed, and
/// neither leaves anything for the store to write again.
@Suite struct DeviceRestoreTests {
    private static func token(_ number: Int) -> String { String(repeating: "0", count: 63) + String(number, radix: 16) }

    /// A scenario's devices: phone-1…phone-3, each with one app and a fixed token.
    private func scenarioSimulator() throws -> (DeviceSimulator, APNsWorld) {
        let world = APNsWorld()
        let simulator = DeviceSimulator(world: world, clock: ManualClock(Fixture.start))
        try simulator.replaceAll(with: (1...3).map { number in
            SimulatedDevice(id: "phone-\(number)", apps: [AppInstall(bundleID: Fixture.bundleID, deviceToken: Self.token(number))])
        })
        return (simulator, world)
    }

    @Test func discardingChangesLeavesNothingToSave() throws {
        let (simulator, _) = try scenarioSimulator()
        try simulator.removeDevice("phone-3")
        #expect(simulator.unsavedChangeCount == 3, "two added, one removed")
        simulator.discardChanges()
        #expect(simulator.unsavedChangeCount == 0)
        #expect(simulator.takeChanges().isEmpty)
    }

    @Test func restoreReplacesAddsAndRemovesOnlyWhatItIsGiven() throws {
        let (simulator, world) = try scenarioSimulator()
        simulator.discardChanges()
        var changed = try #require(simulator.device("phone-1"))
        changed.locked = true
        changed.apps[0].deviceToken = Self.token(11)
        let added = SimulatedDevice(id: "phone-4", apps: [AppInstall(bundleID: Fixture.bundleID, deviceToken: Self.token(4))])

        try simulator.restore([changed, added], removing: ["phone-2", "phone-9"])

        #expect(simulator.devices.map(\.id) == ["phone-1", "phone-3", "phone-4"])
        #expect(simulator.device("phone-1")?.locked == true)
        #expect(world.token(Self.token(11))?.deviceID == "phone-1", "the saved token is registered")
        #expect(world.token(Self.token(1)) == nil, "the replaced device's old token is forgotten")
        #expect(world.token(Self.token(2)) == nil, "so is a removed device's")
        #expect(world.token(Self.token(3))?.deviceID == "phone-3", "an untouched device keeps its token")
        #expect(world.token(Self.token(4))?.deviceID == "phone-4")
        #expect(simulator.unsavedChangeCount == 0, "what came from the store is not written back")
    }

    @Test func aRestoredDeviceFiresWhatWasPendingAtItsTime() throws {
        let (simulator, _) = try scenarioSimulator()
        var device = try #require(simulator.device("phone-1"))
        device.apps[0].pendingLocal = [
            LocalNotification(
                identifier: "soon", content: NotificationContent(title: "Soon"), trigger: .timeInterval(seconds: 60, repeats: false),
                nextFireTime: Fixture.start + Fixture.minute
            ),
        ]
        try simulator.restore([device], removing: [])
        try simulator.advanceClock(milliseconds: 2 * Fixture.minute)
        #expect(simulator.device("phone-1")?.apps[0].pendingLocal.isEmpty == true)
        #expect(simulator.device("phone-1")?.apps[0].notificationCenter.map(\.identifier) == ["soon"])
    }

    @Test func aDeviceRestoredWithATokenAnotherHoldsIsRefused() throws {
        let (simulator, _) = try scenarioSimulator()
        let clash = SimulatedDevice(id: "phone-4", apps: [AppInstall(bundleID: Fixture.bundleID, deviceToken: Self.token(3))])
        let error = #expect(throws: SimulatorError.self) { try simulator.restore([clash], removing: []) }
        #expect(error?.kind == .conflict)
    }

    @Test func registeringManyDevicesReportsProgressUpToTheTotal() throws {
        let simulator = DeviceSimulator(world: APNsWorld(), clock: ManualClock())
        let reports = Reports()
        let count = LoadProgress.stride * 2 + 5
        try simulator.addDevices((0..<count).map { SimulatedDevice(id: "d-\($0)") }, progress: reports.progress)
        #expect(reports.seen.map(\.done) == [LoadProgress.stride, LoadProgress.stride * 2, count])
        #expect(reports.seen.allSatisfy { $0.step == .registeringDevices && $0.total == count })
    }
}

/// Collects what a `LoadProgress` reports.
final class Reports: Sendable {
    private let lock = Mutex<[(step: LoadProgress.Step, done: Int, total: Int)]>([])
    var seen: [(step: LoadProgress.Step, done: Int, total: Int)] { lock.withLock { $0 } }
    var progress: LoadProgress { LoadProgress { [self] step, done, total in lock.withLock { $0.append((step, done, total)) } } }
}

@Suite struct RestoreRaceTests {
    /// A store's writer runs while a restart restores its devices: whenever it asks what changed,
    /// it never finds a restored device removed. Once it did (between taking the device out and
    /// putting the saved one in), and saved it so: the next start lost the device.
    @Test func aStoreAskingDuringARestoreNeverSeesARestoredDeviceRemoved() throws {
        let simulator = DeviceSimulator(world: APNsWorld(), clock: ManualClock(Fixture.start))
        let token = { (number: Int) in String(repeating: "0", count: 63) + String(number, radix: 16) }
        try simulator.replaceAll(with: (1...3).map { SimulatedDevice(id: "phone-\($0)", apps: [AppInstall(bundleID: Fixture.bundleID, deviceToken: token($0))]) })
        simulator.discardChanges()
        let saved = (1...3).map { number in
            SimulatedDevice(id: "phone-\(number)", name: "saved", apps: [AppInstall(bundleID: Fixture.bundleID, deviceToken: token(number))])
        }
        let done = Atomic<Bool>(false)
        let seenRemoved = Mutex<Set<String>>([])
        let writer = Thread {
            while !done.load(ordering: .relaxed) {
                let removed = simulator.takeChanges().removed
                if !removed.isEmpty { seenRemoved.withLock { $0.formUnion(removed) } }
            }
        }
        writer.start()
        for _ in 0..<2_000 { try simulator.restore(saved, removing: []) }
        done.store(true, ordering: .relaxed)
        while !writer.isFinished { usleep(1_000) }
        #expect(seenRemoved.withLock { $0 }.isEmpty)
        #expect(simulator.deviceCount == 3)
    }
}
