@testable import PushlabCluster
import PushlabCore
import PushlabRedis
import PushlabSimulator
import RedisTestServers
import Testing

/// The changes to a cluster's world in the engine: in order for every node, trimmed to what a
/// node joining later must replay, and a new world's keys for a reset or a scenario load.
@Suite struct WorldChangesTests {
    static func changes() async throws -> WorldChanges {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        return WorldChanges(client: client, keys: EngineKeys(prefix: "world-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 8)))
    }

    @Test func anIdleNodeWaitsOnItsOwnConnectionForTheNextChange() async throws {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        let changes = WorldChanges(client: client, keys: EngineKeys(prefix: "wait-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 8)))
        let reader = RedisBlockingReader(client: client)
        defer { Task { await reader.close() } }
        let clock = ContinuousClock()

        var asked = clock.now
        #expect(try await changes.wait(after: nil, upTo: .milliseconds(300), on: reader).isEmpty, "no change came")
        #expect(clock.now - asked >= .milliseconds(250), "it waited for one")

        let first = try await changes.append(method: "POST", path: "/v1/apps", body: [], kind: .change)
        asked = clock.now
        #expect(try await changes.wait(after: nil, upTo: .seconds(5), on: reader).map(\.id) == [first.id], "one there already")
        #expect(clock.now - asked < .seconds(2))

        // While it waits, the client's pipelined connections carry other commands.
        let waiting = Task { try await changes.wait(after: first.id, upTo: .seconds(5), on: reader) }
        try await Task.sleep(for: .milliseconds(100))
        asked = clock.now
        let second = try await changes.append(method: "POST", path: "/v1/clock", body: Array(#"{"advance":1}"#.utf8), kind: .change)
        let woken = try await waiting.value
        #expect(woken.map(\.id) == [second.id] && woken.first?.path == "/v1/clock", "the waiting read came back with the new change")
        #expect(clock.now - asked < .seconds(2), "at once, not at the end of its wait")
        #expect(try await changes.read(after: first.id).map(\.id) == [second.id], "the same change a read finds")
    }

    @Test func everyNodeReadsTheChangesInOrderAndSaysHowFarItGot() async throws {
        let changes = try await Self.changes()
        let first = try await changes.append(method: "POST", path: "/v1/apps", body: Array(#"{"bundleId":"a"}"#.utf8), kind: .change)
        let second = try await changes.append(method: "POST", path: "/v1/clock", body: Array(#"{"advance":60}"#.utf8), kind: .change)
        #expect(first.replaced == nil && first.id < second.id)
        let all = try await changes.read(after: nil)
        #expect(all.map(\.path) == ["/v1/apps", "/v1/clock"])
        #expect(all[1] == WorldChanges.Change(id: second.id, method: "POST", path: "/v1/clock", body: Array(#"{"advance":60}"#.utf8), kind: .change))
        #expect(try await changes.read(after: first.id).map(\.id) == [second.id])
        #expect(try await changes.read(after: second.id).isEmpty)
        #expect(try await changes.last() == second.id)
        try await changes.markApplied(first.id, by: "node-1")
        try await changes.markApplied(second.id, by: "node-2")
        #expect(try await changes.applied() == ["node-1": first.id, "node-2": second.id])
        try await changes.forget("node-1")
        #expect(try await changes.applied() == ["node-2": second.id])
    }

    @Test func aResetOrALoadStartsAWorldAndLeavesOnlyWhatALaterNodeReplays() async throws {
        let changes = try await Self.changes()
        #expect(try await changes.currentWorld() == "0")
        _ = try await changes.append(method: "POST", path: "/v1/apps", body: [], kind: .change)
        let load = try await changes.append(method: "POST", path: "/v1/scenario", body: [], kind: .load)
        #expect(load.replaced == "0")
        #expect(try await changes.read(after: nil).map(\.kind) == [.load], "what came before a load is gone")
        _ = try await changes.append(method: "POST", path: "/v1/clock", body: [], kind: .change)
        let reset = try await changes.append(method: "POST", path: "/v1/reset", body: [], kind: .reset)
        #expect(reset.replaced == load.id.description)
        #expect(try await changes.currentWorld() == reset.id.description)
        // A reset returns to the last load's scenario: that stays, the clock's change goes.
        #expect(try await changes.read(after: nil).map(\.kind) == [.load, .reset])
        let tokens = try await changes.append(method: "PUBLISH", path: "node-1", body: [], kind: .published)
        #expect(tokens.replaced == nil)
        #expect(try await changes.currentWorld() == reset.id.description)
    }

    @Test func aWorldNoNodeUsesIsDeletedAndNoOtherKey() async throws {
        let changes = try await Self.changes()
        let client = try await EngineTests.connect(to: try await RedisServers.sharedCluster())
        let old = changes.keys
        let new = EngineKeys(prefix: old.prefix, partitions: old.partitions, world: WorldGeneration("1-0"))
        for partition in 0..<old.partitions.count {
            for key in [old.log(partition), old.devices(partition), new.log(partition)] {
                _ = try await client.send(RESPCommand("SET", RESPArgument(key), "x"), key: key)
            }
        }
        _ = try await client.send(RESPCommand("SET", RESPArgument(old.owner(0)), "node-1"), key: old.owner(0))
        #expect(try await changes.delete(world: "0") == 2 * old.partitions.count)
        for partition in 0..<old.partitions.count {
            #expect(try await client.send(RESPCommand("EXISTS", RESPArgument(old.log(partition))), key: old.log(partition)).integer == 0)
            #expect(try await client.send(RESPCommand("EXISTS", RESPArgument(new.log(partition))), key: new.log(partition)).integer == 1)
        }
        #expect(try await client.send(RESPCommand("GET", RESPArgument(old.owner(0))), key: old.owner(0)).text == "node-1", "ownership is no world's")
    }

    @Test func whatANodeMadeReadsBackOnAnyNode() {
        let channel = BroadcastChannel(id: "c3VtbWFyeQ==", bundleID: "com.example.app", environment: .production, storagePolicy: .mostRecent, createdAt: 7)
        let changes: [PublishedChange] = [
            .token(.register(DeviceTokenRecord(token: String(repeating: "ab", count: 32), bundleID: "com.example.app", environment: .production, kind: .liveActivity, deviceID: "phone-1"))),
            .token(.register(DeviceTokenRecord(token: String(repeating: "cd", count: 32), bundleID: "com.example.app", environment: .development, kind: .pushToStart, state: .expired(since: 42)))),
            .token(.unregister(token: String(repeating: "ab", count: 32), at: 1_767_225_600_000)),
            .channel(.created(channel)),
            .channel(.deleted(channel)),
        ]
        #expect(PublishedChangeJSON.decode(PublishedChangeJSON.encode(changes)) == changes)
        #expect(PublishedChangeJSON.decode(Array(#"[{"op":"register","token":"ab"}]"#.utf8)) == nil, "an unreadable change is refused whole")
    }
}
