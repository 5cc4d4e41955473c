import Foundation
import PushlabCore
import PushlabDelivery
import PushlabSimulator
import PushlabStore
import Synchronization
import Testing

/// One implementation of the log, as the contract suite makes it: `make` opens a new, empty log
/// (with as many partitions as it can have, at most the number asked for); `reopen`, for a log
/// that outlives the process, closes it and opens it again as a restart would.
struct LogUnderTest: Sendable, CustomTestStringConvertible {
    var name: String
    var make: @Sendable (DevicePartitions) throws -> any AcceptedPushLog
    var reopen: (@Sendable (any AcceptedPushLog) async throws -> any AcceptedPushLog)?

    var testDescription: String { name }

    /// Every implementation the suite runs against.
    static let all = [
        LogUnderTest(name: "in-memory", make: { InMemoryAcceptedPushLog(partitions: $0) }, reopen: nil),
        LogUnderTest(name: "SQLite (the store)", make: { _ in try StoreFile.open(StoreFile.fresh()) }, reopen: { log in
            let store = log as! PushlabStore
            try await store.close()
            return try StoreFile.open(store.path)
        }),
    ]
}

/// A store of its own in a new temporary folder, for the SQLite log; the folders go when the
/// test process exits (a store reopened by a test outlives the test's scope).
enum StoreFile {
    static func fresh() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        made.withLock { $0.append(folder) }
        return folder.appendingPathComponent("store.db").path
    }

    private static let made: Mutex<[URL]> = {
        atexit {
            for folder in StoreFile.made.withLock({ $0 }) { try? FileManager.default.removeItem(at: folder) }
        }
        return Mutex([])
    }()

    static func open(_ path: String) throws -> PushlabStore {
        try PushlabStore(path: path, devices: DeviceSimulator(world: APNsWorld()), busyRate: nil)
    }
}

/// The rules every `AcceptedPushLog` keeps, whatever holds it.
@Suite struct AcceptedPushLogContractTests {
    @Test(arguments: LogUnderTest.all)
    func positionsGrowByOneInEachPartitionFromOne(_ implementation: LogUnderTest) throws {
        let log = try implementation.make(DevicePartitions(count: 1))
        let first = log.append([LogSamples.push(to: "a"), LogSamples.push(to: "b")])
        let second = log.append([LogSamples.push(to: "a")])
        #expect(Array(first) == [LoggedPushPosition(partition: 0, offset: 1), LoggedPushPosition(partition: 0, offset: 2)])
        #expect(Array(second) == [LoggedPushPosition(partition: 0, offset: 3)])
        // One partition's consecutive positions are held as a run, not an array.
        #expect(first == .run(partition: 0, first: 1, count: 2))
    }

    @Test(arguments: LogUnderTest.all)
    func aPushWithNoDeviceIsNotLogged(_ implementation: LogUnderTest) throws {
        let log = try implementation.make(DevicePartitions(count: 1))
        let positions = log.append([LogSamples.push(to: nil), LogSamples.push(to: "a")])
        #expect(Array(positions) == [nil, LoggedPushPosition(partition: 0, offset: 1)])
        #expect(try log.untaken().map(\.push.deviceID) == ["a"])
    }

    @Test(arguments: LogUnderTest.all)
    func whatIsNotTakenComesBackWhole(_ implementation: LogUnderTest) throws {
        let log = try implementation.make(DevicePartitions(count: 1))
        let pushes = LogSamples.varied()
        _ = log.append(pushes)
        let back = try log.untaken()
        #expect(back.map(\.position.offset) == Array(1...Int64(pushes.count)))
        for (original, logged) in zip(pushes, back) {
            LogSamples.expectSame(logged.push, original)
        }
    }

    /// Taking a position takes its partition's pushes up to it, and no other partition's.
    @Test(arguments: LogUnderTest.all)
    func takingRemovesAPrefixOfThatPartitionOnly(_ implementation: LogUnderTest) throws {
        let log = try implementation.make(DevicePartitions(count: 4))
        let (a, b) = LogSamples.devicesInDifferentPartitions(log.partitions)
        let positions = log.append([a, b, a, b, a].map { LogSamples.push(to: $0) }).compactMap { $0 }
        let taken = positions[2]
        log.markTaken(through: taken)
        let expected = positions.filter { $0.partition != taken.partition || $0.offset > taken.offset }
        #expect(try log.untaken().map(\.position) == expected.sorted())
        if log.partitions.count > 1 {
            // b's pushes are in another partition: all of them are still to be taken.
            #expect(expected.count == 3)
        }
    }

    @Test(arguments: LogUnderTest.all)
    func takingAgainOrLessDoesNothing(_ implementation: LogUnderTest) throws {
        let log = try implementation.make(DevicePartitions(count: 1))
        _ = log.append((0..<5).map { _ in LogSamples.push(to: "a") })
        log.markTaken(through: LoggedPushPosition(partition: 0, offset: 3))
        log.markTaken(through: LoggedPushPosition(partition: 0, offset: 3))
        log.markTaken(through: LoggedPushPosition(partition: 0, offset: 1))
        #expect(try log.untaken().map(\.position.offset) == [4, 5])
    }

    /// A taker that runs ahead of the log (a position not appended yet) takes only what was
    /// there: a push appended later is still to be taken.
    @Test(arguments: LogUnderTest.all)
    func takingPastTheEndTakesOnlyWhatWasAppended(_ implementation: LogUnderTest) throws {
        let log = try implementation.make(DevicePartitions(count: 1))
        _ = log.append([LogSamples.push(to: "a")])
        log.markTaken(through: LoggedPushPosition(partition: 0, offset: 10))
        let later = log.append([LogSamples.push(to: "a")])
        #expect(Array(later) == [LoggedPushPosition(partition: 0, offset: 2)])
        #expect(try log.untaken().map(\.position.offset) == [2])
    }

    @Test(arguments: LogUnderTest.all)
    func aDeviceAlwaysHasOnePartitionAndItsOrder(_ implementation: LogUnderTest) async throws {
        let log = try implementation.make(DevicePartitions(count: 8))
        let partitions = log.partitions
        let devices = (0..<16).map { "device-\($0)" }
        // Eight appenders at once, each with its own devices, 200 reads of two pushes each.
        await withTaskGroup(of: Void.self) { group in
            for appender in 0..<8 {
                group.addTask {
                    let mine = devices.enumerated().filter { $0.offset % 8 == appender }.map(\.element)
                    for round in 0..<200 {
                        _ = log.append(mine.map { LogSamples.push(to: $0, priority: round % 10 + 1) })
                    }
                }
            }
        }
        let back = try log.untaken()
        #expect(back.count == 16 * 200)
        for device in devices {
            let mine = back.filter { $0.push.deviceID == device }
            #expect(Set(mine.map(\.position.partition)) == [partitions.partition(of: device)])
            #expect(mine.map(\.push.priority) == (0..<200).map { $0 % 10 + 1 })
            #expect(zip(mine, mine.dropFirst()).allSatisfy { $0.position < $1.position })
        }
    }

    @Test(arguments: LogUnderTest.all.filter { $0.reopen != nil })
    func aRestartFindsWhatWasNotTakenAndGoesOnNumbering(_ implementation: LogUnderTest) async throws {
        let log = try implementation.make(DevicePartitions(count: 1))
        let pushes = LogSamples.varied() + (0..<3).map { _ in LogSamples.push(to: "a") }
        _ = log.append(pushes)
        log.markTaken(through: LoggedPushPosition(partition: 0, offset: 2))
        let reopened = try await implementation.reopen!(log)
        let back = try reopened.untaken()
        #expect(back.map(\.position.offset) == [3, 4, 5, 6])
        for (original, logged) in zip(pushes.dropFirst(2), back) { LogSamples.expectSame(logged.push, original) }
        #expect(Array(reopened.append([LogSamples.push(to: "a")])) == [LoggedPushPosition(partition: 0, offset: 7)])
        reopened.markTaken(through: LoggedPushPosition(partition: 0, offset: 7))
        let again = try await implementation.reopen!(reopened)
        #expect(try again.untaken().isEmpty)
        #expect(Array(again.append([LogSamples.push(to: "b")])) == [LoggedPushPosition(partition: 0, offset: 8)])
    }

    @Test func devicePartitionsAreStableAndInRange() {
        let partitions = DevicePartitions(count: 16)
        let spread = Set((0..<1_000).map { partitions.partition(of: "device-\($0)") })
        #expect(spread == Set(0..<16))
        // FNV-1a of "device-1" is fixed by its definition, on every run and machine.
        #expect(partitions.partition(of: "device-1") == Int(FNV1a("device-1").state % 16))
        #expect(DevicePartitions(count: 0).count == 1)
    }
}

/// Pushes for the contract tests.
enum LogSamples {
    static func push(to deviceID: String?, priority: Int = 10) -> AcceptedPush {
        let token = String(repeating: "ab", count: 32)
        let registration = deviceID.map {
            DeviceTokenRecord(token: token, bundleID: "com.example.app", environment: .development, deviceID: $0)
        }
        return AcceptedPush(
            apnsID: APNsID("0b1f8a3c-5d2e-4f60-8a7b-9c0d1e2f3a4b"), receivedAt: 1_767_225_600_000, environment: .development,
            deviceToken: token, registration: registration, topic: "com.example.app", bundleID: "com.example.app", pushType: .alert,
            priority: priority, expiration: nil, collapseID: nil, payload: nil, rawPayload: Array(#"{"aps":{"alert":"hi"}}"#.utf8),
            isDeliverable: true, connectionID: 1
        )
    }

    /// Pushes that differ in every field the log keeps.
    static func varied() -> [AcceptedPush] {
        let voipToken = String(repeating: "cd", count: 40)
        let voip = DeviceTokenRecord(token: voipToken, bundleID: "com.example.voip", environment: .production, kind: .voip, deviceID: "phone-2")
        return [
            push(to: "phone-1"),
            AcceptedPush(
                apnsID: APNsID("Not-A-UUID but kept"), receivedAt: 42, environment: .production, deviceToken: voipToken,
                registration: voip, topic: "com.example.voip.voip", bundleID: "com.example.voip", pushType: .voip, priority: 5,
                expiration: 0, collapseID: "group-7", payload: nil, rawPayload: Array("not json at all \u{1F600}".utf8),
                isDeliverable: false, connectionID: 987_654_321
            ),
            AcceptedPush(
                apnsID: APNsID("FFFFFFFF-0000-4000-8000-000000000001"), receivedAt: 1_900_000_000_000, environment: .development,
                deviceToken: String(repeating: "01", count: 32),
                registration: DeviceTokenRecord(token: String(repeating: "01", count: 32), bundleID: "com.example.app", environment: .development, deviceID: "phone-1"),
                topic: "com.example.app", bundleID: "com.example.app", pushType: .background, priority: 1,
                expiration: 1_900_000_060, collapseID: nil, payload: nil, rawPayload: [], isDeliverable: true, connectionID: 0
            ),
        ]
    }

    /// Two device ids whose pushes go to different partitions.
    static func devicesInDifferentPartitions(_ partitions: DevicePartitions) -> (String, String) {
        let a = "device-a"
        guard partitions.count > 1 else { return (a, "device-b") }
        let b = (0...).lazy.map { "device-b\($0)" }.first { partitions.partition(of: $0) != partitions.partition(of: a) }!
        return (a, b)
    }

    static func expectSame(_ logged: AcceptedPush, _ original: AcceptedPush, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(logged.apnsIDValue == original.apnsIDValue, sourceLocation: sourceLocation)
        #expect(logged.receivedAt == original.receivedAt, sourceLocation: sourceLocation)
        #expect(logged.connectionID == original.connectionID, sourceLocation: sourceLocation)
        #expect(logged.expiration == original.expiration, sourceLocation: sourceLocation)
        #expect(logged.priority == original.priority, sourceLocation: sourceLocation)
        #expect(logged.environment == original.environment, sourceLocation: sourceLocation)
        #expect(logged.deviceToken == original.deviceToken, sourceLocation: sourceLocation)
        #expect(logged.bundleID == original.bundleID, sourceLocation: sourceLocation)
        #expect(logged.deviceID == original.deviceID, sourceLocation: sourceLocation)
        #expect(logged.registration?.kind == original.registration?.kind, sourceLocation: sourceLocation)
        #expect(logged.topic == original.topic, sourceLocation: sourceLocation)
        #expect(logged.pushType == original.pushType, sourceLocation: sourceLocation)
        #expect(logged.collapseID == original.collapseID, sourceLocation: sourceLocation)
        #expect(logged.isDeliverable == original.isDeliverable, sourceLocation: sourceLocation)
        #expect(logged.rawPayload == original.rawPayload, sourceLocation: sourceLocation)
    }
}
