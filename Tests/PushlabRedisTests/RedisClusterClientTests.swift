import PushlabRedis
import RedisTestServers
import Testing

/// The cluster client against a real cluster of three `redis-server` masters. The tests that
/// move slots or cut connections share a cluster of their own, one test at a time, each on slots
/// and keys of its own.
@Suite(.serialized) struct RedisClusterClientTests {
    @Test func keysGoToTheMasterOfTheirSlotAndATagKeepsThemTogether() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = RedisClusterClient(seeds: [servers.endpoints[1]])
        try await client.start()
        let map = try #require(client.slotMap)
        #expect(map.masters.count == 3 && map.coversEverySlot)
        let prefix = "spread-\(UInt32.random(in: 0...UInt32.max))"
        var perNode = [0, 0, 0]
        for n in 0..<60 {
            let key = "\(prefix)-\(n)"
            _ = try await client.send(RESPCommand("SET", RESPArgument(key), RESPArgument(n)), key: key)
            // On the master the slot map names, and on no other.
            var holders: [Int] = []
            for index in servers.endpoints.indices where try await servers.cli(index, "EXISTS", key) == "1" { holders.append(index) }
            #expect(holders.map { servers.endpoints[$0] } == [map.master(ofSlot: HashSlot.of(key))], "\(key)")
            for holder in holders { perNode[holder] += 1 }
        }
        #expect(perNode.allSatisfy { $0 > 0 }, "spread over every master: \(perNode)")
        for n in 0..<60 { #expect(try await client.send(RESPCommand("GET", RESPArgument("\(prefix)-\(n)")), key: "\(prefix)-\(n)").text == String(n)) }

        // One tag, one slot: a pipeline of keys with it runs on one master in one round trip.
        let tag = "{\(prefix)-phone-7}"
        let answers = try await client.pipeline(
            [RESPCommand("SET", RESPArgument("\(tag):state"), "online"), RESPCommand("XADD", RESPArgument("\(tag):log"), "*", "push", "1"),
             RESPCommand("GET", RESPArgument("\(tag):state"))],
            slot: HashSlot.of(tag)
        )
        #expect(answers[0] == .simpleString("OK") && answers[2].text == "online")
        await client.close()
    }

    /// A slot moved to another master after the client read the map: the old master answers
    /// MOVED, and the client follows it (and reads the map again).
    @Test func aMovedSlotIsFollowed() async throws {
        let servers = try await RedisServers.sharedCluster(changing: true)
        let client = RedisClusterClient(seeds: [servers.endpoints[0]])
        try await client.start()
        let slot = HashSlot.of("moving")
        let map = try #require(client.slotMap)
        let oldMaster = try #require(map.master(ofSlot: slot))
        let from = try #require(servers.index(of: oldMaster))
        let to = (from + 1) % 3
        _ = try await client.send(RESPCommand("SET", "moving", "before"), key: "moving")

        try await migrate(slot: slot, key: "moving", from: from, to: to, in: servers, finish: true)
        #expect(client.slotMap?.master(ofSlot: slot) == servers.endpoints[from], "the client's map is stale")
        #expect(try await client.send(RESPCommand("GET", "moving"), key: "moving").text == "before")
        #expect(client.slotMap?.master(ofSlot: slot) == servers.endpoints[to], "MOVED made it read the map again")
        await client.close()
    }

    /// A slot half-way through a migration: a key already moved is answered ASK by the old
    /// master, and the client asks the new one (ASKING) without changing its map.
    @Test func aMigratingSlotIsAskedForOnTheNewMaster() async throws {
        let servers = try await RedisServers.sharedCluster(changing: true)
        let client = RedisClusterClient(seeds: [servers.endpoints[0]])
        try await client.start()
        let slot = HashSlot.of("{m}a")
        let oldMaster = try #require(client.slotMap?.master(ofSlot: slot))
        let from = try #require(servers.index(of: oldMaster))
        let to = (from + 2) % 3
        _ = try await client.send(RESPCommand("SET", "{m}a", "moved"), key: "{m}a")
        _ = try await client.send(RESPCommand("SET", "{m}b", "stays"), key: "{m}b")

        try await migrate(slot: slot, key: "{m}a", from: from, to: to, in: servers, finish: false)
        #expect(try await client.send(RESPCommand("GET", "{m}a"), key: "{m}a").text == "moved", "ASK followed")
        #expect(try await client.send(RESPCommand("GET", "{m}b"), key: "{m}b").text == "stays", "still on the old master")
        #expect(client.slotMap?.master(ofSlot: slot) == servers.endpoints[from], "an ASK does not change the map")
        await client.close()
    }

    @Test func aClosedConnectionIsMadeAgain() async throws {
        let servers = try await RedisServers.sharedCluster(changing: true)
        let client = RedisClusterClient(seeds: servers.endpoints)
        try await client.start()
        _ = try await client.send(RESPCommand("SET", "kept", "v"), key: "kept")
        let node = try #require(client.slotMap?.master(ofSlot: HashSlot.of("kept")))
        let index = try #require(servers.index(of: node))
        try await servers.cli(index, "CLIENT", "KILL", "TYPE", "normal")
        try await Task.sleep(for: .milliseconds(50))
        // The command in flight when a connection dies fails; the next one connects again.
        _ = try? await client.send(RESPCommand("GET", "kept"), key: "kept")
        #expect(try await client.send(RESPCommand("GET", "kept"), key: "kept").text == "v")
        await client.close()
    }

    @Test func aServerThatIsNoClusterIsAReadableError() async throws {
        let servers = try await RedisServers.start()
        defer { servers.stop() }
        do {
            try await RedisClusterClient(seeds: servers.endpoints).start()
            Issue.record("a standalone server was taken for a cluster")
        } catch {
            #expect(error.kind == .cluster)
            #expect(error.description.contains("CLUSTER SLOTS"))
        }
    }

    /// Moves `key`'s slot from node `from` to node `to` as `redis-cli --cluster reshard` does:
    /// IMPORTING and MIGRATING, MIGRATE of the key, then (with `finish`) the slot assigned to
    /// `to` on every node.
    private func migrate(slot: Int, key: String, from: Int, to: Int, in servers: RedisServers, finish: Bool) async throws {
        let fromID = try await servers.nodeID(from)
        let toID = try await servers.nodeID(to)
        try await servers.cli(to, "CLUSTER", "SETSLOT", String(slot), "IMPORTING", fromID)
        try await servers.cli(from, "CLUSTER", "SETSLOT", String(slot), "MIGRATING", toID)
        let target = servers.endpoints[to]
        try await servers.cli(from, "MIGRATE", target.host, String(target.port), key, "0", "5000")
        guard finish else { return }
        for index in servers.endpoints.indices { try await servers.cli(index, "CLUSTER", "SETSLOT", String(slot), "NODE", toID) }
    }
}
