@testable import PushlabCluster
@testable import PushlabCore
import PushlabDelivery
import PushlabRedis
import PushlabSimulator
import PushlabStore
import RedisTestServers
import Testing

/// The rules every `PartitionedPushLog` keeps, driven through the engine's (`EnginePartitionLog`
/// on Redis Cluster) and the in-memory one with the same cases, as `AcceptedPushLogContractTests`
/// does for the log of one process.
@Suite struct PartitionedPushLogContractTests {
    enum Implementation: String, CaseIterable, CustomTestStringConvertible {
        case inMemory = "in-memory"
        case engine = "engine (Redis Cluster)"

        var testDescription: String { rawValue }

        func make() async throws -> any LogUnderContract {
            switch self {
            case .inMemory: InMemoryUnderContract()
            case .engine: try await EngineUnderContract.make()
            }
        }
    }

    static let partitions = DevicePartitions(count: 4)

    /// A push for `deviceID`, told apart by `number`.
    static func push(to deviceID: String, number: Int) -> AcceptedPush {
        let token = String(repeating: "ab", count: 32)
        return AcceptedPush(
            apnsID: APNsID("0b1f8a3c-5d2e-4f60-8a7b-\(String(number).leftPadded(to: 12))"), receivedAt: 1_767_225_600_000 + Int64(number),
            environment: .development, deviceToken: token,
            registration: DeviceTokenRecord(token: token, bundleID: "com.example.app", environment: .development, deviceID: deviceID),
            topic: "com.example.app", bundleID: "com.example.app", pushType: .alert, priority: 10, expiration: nil, collapseID: nil, payload: nil,
            rawPayload: Array(#"{"aps":{"alert":"\#(number)"}}"#.utf8), isDeliverable: true, connectionID: 1
        )
    }

    static let phone = "phone-1"
    static var partition: Int { partitions.partition(of: phone) }

    static func numbers<ID>(_ entries: [PartitionEntry<ID>]) -> [[String]] {
        entries.map { entry in
            guard case .pushes(let pushes) = entry.content else { return [] }
            return pushes.map(\.apnsIDValue.text)
        }
    }

    @Test(arguments: Implementation.allCases)
    func entriesAreReadOnceInOrderAndTakenOnce(_ implementation: Implementation) async throws {
        try await Self.entriesAreReadOnceInOrderAndTakenOnce(try await implementation.make())
    }

    static func entriesAreReadOnceInOrderAndTakenOnce<Under: LogUnderContract>(_ log: Under) async throws {
        try await log.append([push(to: phone, number: 1), push(to: phone, number: 2)])
        try await log.append([push(to: phone, number: 3)])
        let a = log.reader("a")
        let read = try await a.readNew(partition: partition, count: 10)
        #expect(numbers(read).map(\.count) == [2, 1], "one entry a call, in order")
        #expect(numbers(read).flatMap { $0 } == (1...3).map { push(to: phone, number: $0).apnsIDValue.text })
        #expect(try await a.readNew(partition: partition, count: 10).isEmpty, "read once")
        #expect(try await log.reader("b").readNew(partition: partition, count: 10).isEmpty, "by one reader")
        #expect(try await a.take(partition: partition, ids: [read[0].id], observations: [], phones: []))
        #expect(try await log.untaken(partition: partition) == 1)
        #expect(try await log.reader("b").claimAbandoned(partition: partition, minIdle: .zero, count: 10).map(\.id) == [read[1].id],
                "what was taken is nobody's to claim")
    }

    @Test(arguments: Implementation.allCases)
    func whatAReaderLeftIsClaimedOnlyOnceIdleLongEnough(_ implementation: Implementation) async throws {
        try await Self.whatAReaderLeftIsClaimedOnlyOnceIdleLongEnough(try await implementation.make())
    }

    static func whatAReaderLeftIsClaimedOnlyOnceIdleLongEnough<Under: LogUnderContract>(_ log: Under) async throws {
        try await log.append([push(to: phone, number: 1)])
        let left = try await log.reader("a").readNew(partition: partition, count: 10)
        let b = log.reader("b")
        #expect(try await b.claimAbandoned(partition: partition, minIdle: .seconds(60), count: 10).isEmpty, "not idle long enough")
        let claimed = try await b.claimAbandoned(partition: partition, minIdle: .zero, count: 10)
        #expect(claimed.map(\.id) == left.map(\.id) && numbers(claimed) == numbers(left), "the same entry, whole")
        #expect(try await b.take(partition: partition, ids: claimed.map(\.id), observations: [], phones: []))
        #expect(try await log.untaken(partition: partition) == 0)
    }

    @Test(arguments: Implementation.allCases)
    func aTakingWritesTheObservationsAndPhonesOrNothingForAnotherHolder(_ implementation: Implementation) async throws {
        try await Self.aTakingWritesTheObservationsAndPhonesOrNothingForAnotherHolder(try await implementation.make())
    }

    static func aTakingWritesTheObservationsAndPhonesOrNothingForAnotherHolder<Under: LogUnderContract>(_ log: Under) async throws {
        try await log.append([push(to: phone, number: 1)])
        let a = log.reader("a")
        let read = try await a.readNew(partition: partition, count: 10)
        let observation = Observation(
            sequence: 7, time: 1_767_225_600_001, deviceID: phone, bundleID: "com.example.app", notificationID: push(to: phone, number: 1).apnsIDValue.text,
            event: .delivered(pushType: "alert", priority: 10)
        )
        let device = SimulatedDevice(id: phone, apps: [AppInstall(bundleID: "com.example.app", deviceToken: String(repeating: "ab", count: 32))])
        try await log.hold(partition, by: "b")
        #expect(try await !a.take(partition: partition, ids: read.map(\.id), observations: [observation], phones: [.changed(device)]),
                "another reader holds the partition")
        let (observed, phones) = (try await log.observations(partition: partition), try await log.phones(partition: partition))
        #expect(observed.isEmpty && phones.isEmpty, "nothing written")
        #expect(try await log.untaken(partition: partition) == 1, "nothing taken")

        try await log.hold(partition, by: nil)
        #expect(try await a.take(partition: partition, ids: read.map(\.id), observations: [observation], phones: [.changed(device), .removed(id: "phone-2")]),
                "a partition nobody holds becomes the taker's")
        #expect(try await log.observations(partition: partition) == [observation])
        #expect(try await log.phones(partition: partition) == [phone: true, "phone-2": false])
        #expect(try await log.untaken(partition: partition) == 0)
        #expect(try await !log.reader("b").take(partition: partition, ids: [], observations: [observation], phones: []), "and stays it")
    }
}

/// One implementation as the contract drives it: a log of `PartitionedPushLogContractTests.partitions`,
/// its readers, and what its takings wrote.
protocol LogUnderContract: Sendable {
    associatedtype Log: PartitionedPushLog
    func reader(_ name: String) -> Log
    /// Accepted together: one entry a partition.
    func append(_ pushes: [AcceptedPush]) async throws
    /// `name` holds the partition (nil: nobody).
    func hold(_ partition: Int, by name: String?) async throws
    func untaken(partition: Int) async throws -> Int
    func observations(partition: Int) async throws -> [Observation]
    /// Each phone written: true when changed, false when removed.
    func phones(partition: Int) async throws -> [String: Bool]
}

struct InMemoryUnderContract: LogUnderContract {
    let log = InMemoryPartitionedPushLog(partitions: PartitionedPushLogContractTests.partitions)

    func reader(_ name: String) -> InMemoryPartitionedPushLog.Reader { log.reader(name) }
    func append(_ pushes: [AcceptedPush]) async throws { log.append(pushes) }
    func hold(_ partition: Int, by name: String?) async throws { log.hold(partition, by: name) }
    func untaken(partition: Int) async throws -> Int { log.untaken(partition: partition) }
    func observations(partition: Int) async throws -> [Observation] { log.observations(partition: partition).flatMap { $0 } }
    func phones(partition: Int) async throws -> [String: Bool] { log.phones(partition: partition).mapValues { $0 != nil } }
}

struct EngineUnderContract: LogUnderContract {
    let client: RedisClusterClient
    let keys: EngineKeys

    static func make() async throws -> EngineUnderContract {
        let client = try await EngineTests.connect(to: try await RedisServers.sharedCluster())
        return EngineUnderContract(client: client, keys: EngineKeys(prefix: "contract-\(UInt32.random(in: 0...UInt32.max))", partitions: PartitionedPushLogContractTests.partitions))
    }

    var log: EnginePushLog { EnginePushLog(client: client, keys: keys) }

    func reader(_ name: String) -> EnginePartitionLog { EnginePartitionLog(log: log, node: name, lease: .seconds(30)) }

    func append(_ pushes: [AcceptedPush]) async throws {
        let intake = EngineIntake(client: client, keys: keys)
        let verdicts = try await intake.acceptTogether(pushes.map { push in
            EngineIntake.Submission(push: AcceptedPushEncoding.encode([push]), token: push.deviceToken, deviceID: push.deviceID, now: push.receivedAt, limit: nil)
        })
        #expect(verdicts.allSatisfy { if case .accepted = $0 { true } else { false } })
    }

    func hold(_ partition: Int, by name: String?) async throws {
        let command = name.map { RESPCommand("SET", RESPArgument(keys.owner(partition)), RESPArgument($0)) } ?? RESPCommand("DEL", RESPArgument(keys.owner(partition)))
        _ = try await client.send(command, slot: keys.slot(partition))
    }

    func untaken(partition: Int) async throws -> Int { try await log.untakenCount(partition: partition) }

    func observations(partition: Int) async throws -> [Observation] {
        let answer = try await client.send(RESPCommand("XRANGE", RESPArgument(keys.observations(partition)), "-", "+"), slot: keys.slot(partition))
        return (answer.elements ?? []).flatMap { entry in
            entry.elements?.last?.pairs?.first { $0.key.text == "batch" }?.value.bytes.flatMap(PartitionDelivery.decode) ?? []
        }
    }

    func phones(partition: Int) async throws -> [String: Bool] {
        let answer = try await client.send(RESPCommand("HGETALL", RESPArgument(keys.devices(partition))), slot: keys.slot(partition))
        var phones: [String: Bool] = [:]
        for (id, value) in answer.pairs ?? [] {
            if let id = id.text { phones[id] = !(value.bytes ?? []).isEmpty }
        }
        return phones
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
