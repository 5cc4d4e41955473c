import PushlabCluster
import PushlabCore
import PushlabRedis
import RedisTestServers
import Testing

/// The engine's side of who simulates which phones: heartbeats on Redis's clock, leases that
/// only one node holds, and a taking that a node which lost its lease cannot make.
struct OwnershipTests {
    @Test func nodesThatBeatAreLiveAndANodeThatStopsIsForgotten() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        let keys = EngineKeys(prefix: "beats-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 4))
        let heartbeats = NodeHeartbeats(client: client, keys: keys, timeout: .milliseconds(300))
        #expect(try await heartbeats.live().isEmpty)
        _ = try await heartbeats.beat("node-b")
        #expect(try await heartbeats.beat("node-a") == ["node-a", "node-b"])
        #expect(try await heartbeats.leave("node-a") == ["node-b"], "a node that says it leaves is gone at once")
        // node-b stops beating: gone once its timeout has passed on Redis's clock.
        var live = try await heartbeats.beat("node-c")
        let deadline = ContinuousClock.now + .seconds(10)
        while live.contains("node-b"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            live = try await heartbeats.beat("node-c")
        }
        #expect(live == ["node-c"])
        await client.close()
    }

    @Test func aLeaseIsOneNodesUntilReleasedOrExpired() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        let keys = EngineKeys(prefix: "leases-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 4))
        let leases = PartitionLeases(client: client, keys: keys, duration: .milliseconds(300))
        #expect(try await leases.hold(2, for: "node-a"))
        #expect(try await !leases.hold(2, for: "node-b"), "held by node-a")
        #expect(try await leases.hold(2, for: "node-a"), "renewed by its holder")
        #expect(try await leases.holder(of: 2) == "node-a")
        try await leases.release(2, by: "node-b")
        #expect(try await leases.holder(of: 2) == "node-a", "only the holder releases")
        try await leases.release(2, by: "node-a")
        #expect(try await leases.hold(2, for: "node-b"), "free once released")
        // node-b stops renewing: node-a gets it once the lease has run out.
        let deadline = ContinuousClock.now + .seconds(10)
        var taken = try await leases.hold(2, for: "node-a")
        while !taken, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            taken = try await leases.hold(2, for: "node-a")
        }
        #expect(taken)
        #expect(try await leases.holder(of: 3) == nil)
        await client.close()
    }

    /// A node's share renewed together, one pipeline per master: each lease as `hold` alone
    /// would answer, across every master of the cluster.
    @Test func aShareIsHeldAndRenewedTogether() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        let keys = EngineKeys(prefix: "shares-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 32))
        let leases = PartitionLeases(client: client, keys: keys, duration: .seconds(5))
        let masters = Set((0..<32).compactMap { client.slotMap?.master(ofSlot: keys.slot($0)) })
        #expect(masters.count == 3, "the partitions are spread over the three masters")
        #expect(try await leases.hold(7, for: "node-b"))

        let first = await leases.hold(Array(0..<32), for: "node-a")
        #expect(first.count == 32)
        for partition in 0..<32 {
            let held = try first[partition]?.get()
            #expect(held == (partition != 7), "partition \(partition): node-b holds 7")
        }
        let renewed = await leases.hold(Array(0..<32), for: "node-a")
        #expect(try renewed.values.map { try $0.get() }.filter { $0 }.count == 31, "renewed by their holder")
        for partition in [0, 13, 31] { #expect(try await leases.holder(of: partition) == "node-a") }
        #expect(try await leases.holder(of: 7) == "node-b")
        #expect(await leases.hold([], for: "node-a").isEmpty)
        await client.close()
    }

    /// node-a reads pushes, loses its lease to node-b unawares, and tries to take them: nothing
    /// is taken, so node-b claims them and takes each once.
    @Test func aNodeThatLostItsLeaseTakesNothing() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        let keys = EngineKeys(prefix: "fenced-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 4))
        let intake = EngineIntake(client: client, keys: keys)
        let log = EnginePushLog(client: client, keys: keys)
        let leases = PartitionLeases(client: client, keys: keys, duration: .seconds(30))
        let partition = keys.partitions.partition(of: "phone")
        try await log.prepare(partitions: [partition])
        for n in 0..<3 { _ = try await intake.accept([UInt8(n)], token: "aa", deviceID: "phone", now: 1_000, limit: EngineTests.minute) }
        #expect(try await leases.hold(partition, for: "node-a"))
        let readByA = try await log.readNew(partition: partition, consumer: "node-a", count: 10)
        #expect(readByA.count == 3)

        try await leases.release(partition, by: "node-a")
        #expect(try await leases.hold(partition, for: "node-b"))
        let observations = "\(keys.prefix):\(keys.tag(partition)):observations"
        let writes = [EngineWrite.append(stream: observations, fields: [("by", Array("node-a".utf8))])]
        #expect(try await !log.take(partition: partition, ids: readByA.map(\.id), by: "node-a", writes: writes))
        #expect(try await log.untakenCount(partition: partition) == 3)
        #expect(try await client.send(RESPCommand("XLEN", RESPArgument(observations)), key: observations) == .integer(0), "nor observed")

        let claimed = try await log.claimAbandoned(partition: partition, consumer: "node-b", minIdle: .zero, count: 10)
        #expect(claimed == readByA)
        #expect(try await log.take(partition: partition, ids: claimed.map(\.id), by: "node-b"))
        #expect(try await log.untakenCount(partition: partition) == 0)
        await client.close()
    }
}
