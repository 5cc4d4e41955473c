import PushlabCluster
import PushlabCore
import PushlabRedis
import RedisTestServers
import Testing

/// The engine's side of a Pushlab cluster against a real Redis Cluster: the intake script (410,
/// 429 and the log in one round trip) and the partitions' logs as consumer groups. Each test
/// keeps to keys of its own prefix on the shared cluster, but the failover, which has its own.
@Suite struct EngineTests {
    static let minute = APNsPolicy.RateLimit(requests: 3, perSeconds: 60)

    /// A node's client of `servers`, with the slot map read.
    static func connect(to servers: RedisServers) async throws -> RedisClusterClient {
        let client = RedisClusterClient(seeds: servers.endpoints)
        try await client.start()
        return client
    }

    @Test func theIntakeAnswersAsAPNsWouldForEveryNodeAndLogsWhatItAccepts() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await Self.connect(to: servers)
        let keys = EngineKeys(prefix: "intake-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 64))
        let intake = EngineIntake(client: client, keys: keys)
        // Another node, with a client of its own, sees the same windows and states.
        let otherClient = RedisClusterClient(seeds: [servers.endpoints[2]])
        try await otherClient.start()
        let otherNode = EngineIntake(client: otherClient, keys: keys)

        let start: EpochMilliseconds = 1_767_225_600_000
        var ids: [StreamID] = []
        for (n, node) in [intake, otherNode, intake].enumerated() {
            guard case .accepted(let id?) = try await node.accept([UInt8(n)], token: "aa", deviceID: "phone-1", now: start + Int64(n), limit: Self.minute) else {
                Issue.record("push \(n) was not accepted")
                continue
            }
            ids.append(id)
        }
        #expect(ids == ids.sorted() && Set(ids).count == 3)
        #expect(try await otherNode.accept([9], token: "aa", deviceID: "phone-1", now: start + 10, limit: Self.minute) == .tooManyRequests,
                "the fourth in the window, on either node")
        #expect(try await intake.accept([9], token: "aa", deviceID: "phone-1", now: start + 59_999, limit: Self.minute) == .tooManyRequests)
        #expect(try await intake.accept([9], token: "bb", deviceID: "phone-1", now: start + 10, limit: Self.minute) != .tooManyRequests,
                "another token of the device has a window of its own")
        guard case .accepted = try await otherNode.accept([9], token: "aa", deviceID: "phone-1", now: start + 60_000, limit: Self.minute) else {
            Issue.record("a new window did not start a minute later")
            return
        }

        try await intake.unregister(token: "aa", deviceID: "phone-1", since: start + 61_000)
        #expect(try await otherNode.accept([9], token: "aa", deviceID: "phone-1", now: start + 62_000, limit: Self.minute)
            == .unregistered(since: start + 61_000))

        try await intake.expire(token: "bb", deviceID: "phone-1", since: start + 63_000)
        #expect(try await intake.accept([9], token: "bb", deviceID: "phone-1", now: start + 64_000, limit: nil) == .expired(since: start + 63_000))
        try await intake.reactivate(token: "bb", deviceID: "phone-1")
        #expect(try await intake.accept([9], token: "bb", deviceID: "phone-1", now: start + 65_000, limit: nil) != .expired(since: start + 63_000))

        // A token no phone holds: its window counts, nothing is logged.
        let stranger = String(repeating: "cd", count: 32)
        #expect(try await intake.accept([7], token: stranger, deviceID: nil, now: start, limit: Self.minute) == .accepted(nil))
        for n in 1..<3 { _ = try await otherNode.accept([7], token: stranger, deviceID: nil, now: start + Int64(n), limit: Self.minute) }
        #expect(try await intake.accept([7], token: stranger, deviceID: nil, now: start + 3, limit: Self.minute) == .tooManyRequests)

        let log = EnginePushLog(client: client, keys: keys)
        let partition = keys.partitions.partition(of: "phone-1")
        #expect(try await log.untakenCount(partition: partition) == 6, "three, the other token's, the one of the next window and the reactivated token's; none refused")
        await client.close()
        await otherClient.close()
    }

    /// One call for pushes of several partitions of one master: each push has its verdict, in
    /// order, a token's window counts the pushes before it in the same call, and each
    /// partition's accepted pushes are one entry of its log.
    @Test func oneCallDecidesPushesOfSeveralPartitionsAndLogsAnEntryAPartition() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await Self.connect(to: servers)
        defer { Task { await client.close() } }
        let keys = EngineKeys(prefix: "batch-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 64))
        let intake = EngineIntake(client: client, keys: keys)
        let map = try #require(client.slotMap)
        let master = try #require(map.master(ofSlot: keys.slot(keys.partitions.partition(of: "phone-0"))))
        let phones = (0..<200).map { "phone-\($0)" }.filter { map.master(ofSlot: keys.slot(keys.partitions.partition(of: $0))) == master }
        let two = Array(Set(phones.map(keys.partitions.partition(of:))).sorted().prefix(2))
        let first = try #require(phones.first { keys.partitions.partition(of: $0) == two[0] })
        let second = try #require(phones.first { keys.partitions.partition(of: $0) == two[1] })
        try await intake.unregister(token: "gone", deviceID: second, since: 500)

        let submissions = (0..<5).map { EngineIntake.Submission(push: [UInt8($0)], token: "aa", deviceID: first, now: 1_000 + Int64($0), limit: Self.minute) }
            + [EngineIntake.Submission(push: [50], token: "bb", deviceID: second, now: 1_000, limit: Self.minute),
               EngineIntake.Submission(push: [51], token: "gone", deviceID: second, now: 1_000, limit: Self.minute),
               EngineIntake.Submission(push: [52], token: "bb", deviceID: second, now: 1_001, limit: nil)]
        let verdicts = try await intake.acceptTogether(submissions)
        guard case .accepted(let firstID?) = verdicts[0], case .accepted(let secondID?) = verdicts[5] else {
            Issue.record("not accepted: \(verdicts)")
            return
        }
        #expect(verdicts == [.accepted(firstID), .accepted(firstID), .accepted(firstID), .tooManyRequests, .tooManyRequests,
                             .accepted(secondID), .unregistered(since: 500), .accepted(secondID)])
        let log = EnginePushLog(client: client, keys: keys)
        try await log.prepare(partitions: two)
        let read = try await log.readOwnPending(partition: two[0], consumer: "n", count: 10)
        #expect(read.isEmpty, "nothing read yet")
        // The group was made after the appends: read from the log's start.
        let firstEntries = try await client.send(RESPCommand("XRANGE", RESPArgument(keys.log(two[0])), "-", "+"), slot: keys.slot(two[0]))
        #expect(firstEntries.elements?.count == 1, "one entry for the partition's three pushes")
        _ = try await client.send(RESPCommand("XGROUP", "SETID", RESPArgument(keys.log(two[0])), RESPArgument(keys.group), "0"), slot: keys.slot(two[0]))
        _ = try await client.send(RESPCommand("XGROUP", "SETID", RESPArgument(keys.log(two[1])), RESPArgument(keys.group), "0"), slot: keys.slot(two[1]))
        #expect(try await log.readNew(partition: two[0], consumer: "n", count: 10).map(\.pushes) == [[[0], [1], [2]]])
        #expect(try await log.readNew(partition: two[1], consumer: "n", count: 10).map(\.pushes) == [[[50], [52]]])
    }

    /// A call whose pushes' partitions are not all on the master it reaches fails there, and
    /// writes nothing: no push of it may be logged and answered 500.
    @Test func aCallSpanningTwoMastersFailsWithNothingWritten() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await Self.connect(to: servers)
        defer { Task { await client.close() } }
        let keys = EngineKeys(prefix: "span-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 64))
        let intake = EngineIntake(client: client, keys: keys)
        let map = try #require(client.slotMap)
        func master(_ phone: String) -> RedisEndpoint? { map.master(ofSlot: keys.slot(keys.partitions.partition(of: phone))) }
        let here = "phone-0"
        let there = try #require((1..<200).map { "phone-\($0)" }.first { master($0) != master(here) })
        await #expect(throws: RedisError.self) {
            try await intake.acceptTogether([
                EngineIntake.Submission(push: [1], token: "aa", deviceID: here, now: 1, limit: Self.minute),
                EngineIntake.Submission(push: [2], token: "bb", deviceID: there, now: 1, limit: Self.minute),
            ])
        }
        let log = EnginePushLog(client: client, keys: keys)
        #expect(try await log.untakenCount(partition: keys.partitions.partition(of: here)) == 0)
        #expect(try await log.untakenCount(partition: keys.partitions.partition(of: there)) == 0)
        // Nor was the first push counted in its window.
        #expect(try await intake.accept([3], token: "aa", deviceID: here, now: 2, limit: APNsPolicy.RateLimit(requests: 1, perSeconds: 60)) != .tooManyRequests)
    }

    /// Many reads' pushes to one phone, handed over at once from many tasks: each answered, and
    /// logged in the order each reached the lane, with fewer calls than pushes.
    @Test func theLanesKeepEachPhonesPushesInOrderAndAnswerEveryOne() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await Self.connect(to: servers)
        defer { Task { await client.close() } }
        let keys = EngineKeys(prefix: "lanes-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 64))
        let lanes = IntakeLanes(intake: EngineIntake(client: client, keys: keys))
        let log = EnginePushLog(client: client, keys: keys)
        let phones = (0..<8).map { "phone-\($0)" }
        try await log.prepare(partitions: Set(phones.map(keys.partitions.partition(of:))))
        // Eight readers, each with a read of ten pushes, one a phone; each reader's pushes
        // numbered in its order.
        let answers = await withTaskGroup(of: [IntakeLanes.Answer].self) { group in
            for reader in 0..<8 {
                group.addTask {
                    var answers: [IntakeLanes.Answer] = []
                    for read in 0..<5 {
                        let pushes = phones.map { EngineIntake.Submission(push: [UInt8(reader), UInt8(read)], token: "t-\($0)", deviceID: $0, now: 1, limit: nil) }
                        answers += await lanes.accept(pushes)
                    }
                    return answers
                }
            }
            var all: [IntakeLanes.Answer] = []
            for await answers in group { all += answers }
            return all
        }
        #expect(answers.count == 8 * 5 * 8)
        #expect(answers.allSatisfy { if case .success(.accepted(_?)) = $0 { true } else { false } })
        for phone in phones {
            let partition = keys.partitions.partition(of: phone)
            let entries = try await log.readNew(partition: partition, consumer: "n", count: 1_000)
            let pushes = entries.flatMap(\.pushes)
            #expect(pushes.count >= 40)
            for reader in 0..<8 {
                let reads = pushes.filter { $0.first == UInt8(reader) }.map { $0[1] }
                #expect(reads == reads.sorted(), "reader \(reader)'s pushes in its order")
            }
        }
    }

    /// Two nodes consume one partition: each push is read by one of them; what a dead node read
    /// and never took is claimed by the other once it has been idle long enough, and taking
    /// deletes it, with what was written alongside, in one transaction.
    @Test func aDeadConsumersPushesAreClaimedAndEveryPushIsTakenOnce() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await Self.connect(to: servers)
        let prefix = "consumers-\(UInt32.random(in: 0...UInt32.max))"
        let keys = EngineKeys(prefix: prefix, partitions: DevicePartitions(count: 8))
        let intake = EngineIntake(client: client, keys: keys)
        let log = EnginePushLog(client: client, keys: keys)
        let partition = keys.partitions.partition(of: "phone-7")
        try await log.prepare(partitions: 0..<8)
        try await log.prepare(partitions: [partition])  // again: the group is kept
        for n in 0..<10 {
            _ = try await intake.accept([UInt8(n)], token: "t\(n)", deviceID: "phone-7", now: 1_000 + Int64(n), limit: Self.minute)
        }

        let readByA = try await log.readNew(partition: partition, consumer: "node-a", count: 4)
        let readByB = try await log.readNew(partition: partition, consumer: "node-b", count: 100)
        #expect(readByA.map(\.pushes) == (0..<4).map { [[UInt8($0)]] })
        #expect(readByB.map(\.pushes) == (4..<10).map { [[UInt8($0)]] }, "in the order accepted, each read once")

        // Node b takes its pushes with what the phones observed, atomically.
        let observations = "\(prefix):\(keys.tag(partition)):observations"
        let writes = [EngineWrite.append(stream: observations, fields: [("kind", Array("delivered".utf8)), ("count", [6])])]
        #expect(try await log.take(partition: partition, ids: readByB.map(\.id), by: nil, writes: writes))
        let appended = try await client.send(RESPCommand("XRANGE", RESPArgument(observations), "-", "+"), key: observations)
        #expect(appended.elements?.first?.elements?.last?.elements?.compactMap(\.bytes) == [Array("kind".utf8), Array("delivered".utf8), Array("count".utf8), [6]])
        #expect(try await log.untakenCount(partition: partition) == 4)

        // Node a dies with its four pushes read and not taken. Too soon, nothing is claimed.
        #expect(try await log.claimAbandoned(partition: partition, consumer: "node-b", minIdle: .seconds(60), count: 100).isEmpty)
        try await Task.sleep(for: .milliseconds(150))
        let claimed = try await log.claimAbandoned(partition: partition, consumer: "node-b", minIdle: .milliseconds(100), count: 100)
        #expect(claimed == readByA)
        #expect(try await log.readOwnPending(partition: partition, consumer: "node-b", count: 100) == readByA, "b's own now, after a restart of b too")
        try await log.take(partition: partition, ids: claimed.map(\.id), by: nil)
        #expect(try await log.untakenCount(partition: partition) == 0)
        #expect(try await log.readNew(partition: partition, consumer: "node-a", count: 100).isEmpty)
        #expect(try await log.readOwnPending(partition: partition, consumer: "node-a", count: 100).isEmpty, "a comes back to nothing")
        await client.close()
    }

    @Test func aMasterThatLostTheScriptGetsItWhole() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await Self.connect(to: servers)
        let keys = EngineKeys(prefix: "script-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 16))
        let intake = EngineIntake(client: client, keys: keys)
        guard case .accepted = try await intake.accept([1], token: "aa", deviceID: "d", now: 0, limit: Self.minute) else {
            Issue.record("not accepted")
            return
        }
        for index in servers.endpoints.indices { try await servers.cli(index, "SCRIPT", "FLUSH") }
        guard case .accepted = try await intake.accept([2], token: "aa", deviceID: "d", now: 1, limit: Self.minute) else {
            Issue.record("not accepted after SCRIPT FLUSH")
            return
        }
        await client.close()
    }

    /// `kill -9` of the master of a partition under `--durable` intake: a replica is promoted,
    /// the clients follow the new slot map, and every push acknowledged before, during and after
    /// the failover is in the partition's log, once. Two replicas a master, so that the new
    /// master still has one to `WAIT` for.
    @Test func aMastersFailoverLosesNoDurablyAcceptedPush() async throws {
        let servers = try await RedisServers.start(count: 9, cluster: true, replicas: 2)
        defer { servers.stop() }
        let client = try await Self.connect(to: servers)
        let keys = EngineKeys(partitions: DevicePartitions(count: 32))
        let intake = EngineIntake(client: client, keys: keys, replicas: 1, replicaTimeout: .seconds(2))
        let log = EnginePushLog(client: client, keys: keys)
        let partition = keys.partitions.partition(of: "phone-f")
        try await log.prepare(partitions: [partition])
        let limit = APNsPolicy.RateLimit(requests: 1_000_000, perSeconds: 60)

        var acknowledged: [[UInt8]] = []
        var refused = 0
        var number: UInt32 = 0
        func send() async {
            number += 1
            let push = withUnsafeBytes(of: number.bigEndian) { Array($0) }
            do {
                if case .accepted = try await intake.accept(push, token: "ff", deviceID: "phone-f", now: 1_000, limit: limit) { acknowledged.append(push) }
            } catch {
                refused += 1
            }
        }
        for _ in 0..<50 { await send() }
        let oldMaster = try #require(client.slotMap?.master(ofSlot: keys.slot(partition)))
        servers.kill(try #require(servers.index(of: oldMaster)))
        let killedAt = ContinuousClock.now
        // Pushes go on while the replica takes over: refused (a provider retries them) until the
        // new master answers, never acknowledged and lost.
        while ContinuousClock.now - killedAt < .seconds(20) {
            await send()
            if acknowledged.count >= 100 { break }
        }
        #expect(acknowledged.count >= 100, "the new master took pushes within 20 s (\(refused) refused meanwhile)")
        #expect(client.slotMap?.master(ofSlot: keys.slot(partition)) != oldMaster, "the client follows the new map")

        let logged = try await log.readNew(partition: partition, consumer: "node-a", count: 10_000).flatMap(\.pushes)
        #expect(Set(acknowledged).isSubset(of: Set(logged)), "\(Set(acknowledged).subtracting(logged).count) acknowledged pushes lost")
        #expect(logged.count == Set(logged).count, "none twice")
        await client.close()
    }
}
