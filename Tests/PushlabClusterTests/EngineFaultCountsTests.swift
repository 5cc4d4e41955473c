@testable import PushlabCluster
import PushlabCore
import PushlabRedis
import RedisTestServers
import Testing

/// Fault rules counted in the engine (`EngineFaultCounts`): every node's requests count as one
/// process's would, against a real Redis Cluster.
@Suite struct EngineFaultCountsTests {
    static func counts() async throws -> EngineFaultCounts {
        let servers = try await RedisServers.sharedCluster()
        let client = try await EngineTests.connect(to: servers)
        return EngineFaultCounts(client: client, keys: EngineKeys(prefix: "faults-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 8)))
    }

    static func check(_ rule: String, everyNth: Int? = nil, count: Int? = nil, lucky: Bool = true) -> FaultCheck {
        FaultCheck(rule: rule, everyNth: everyNth, count: count, lucky: lucky, fault: .respond(.internalServerError))
    }

    @Test func aCountFiresThatOftenInAllThenTheRuleIsSpent() async throws {
        let counts = try await Self.counts()
        // Two nodes' requests, in turn.
        #expect(try await counts.check([Self.check("fault-1", count: 2)]) == [.fires])
        #expect(try await counts.check([Self.check("fault-1", count: 2), Self.check("fault-1", count: 2)]) == [.firesLast, .spent])
        #expect(try await counts.check([Self.check("fault-1", count: 2)]) == [.spent])
        let seen = try await counts.counts(["fault-1", "fault-9"])
        #expect(seen["fault-1"]?.matched == 2 && seen["fault-1"]?.fired == 2, "a spent rule no longer counts")
        #expect(seen["fault-9"]?.matched == 0 && seen["fault-9"]?.fired == 0)
    }

    @Test func everyNthCountsEveryRequestAndAnUnluckyDrawDoesNotFire() async throws {
        let counts = try await Self.counts()
        let results = try await counts.check((0..<6).map { _ in Self.check("fault-2", everyNth: 3) })
        #expect(results == [.passes, .passes, .fires, .passes, .passes, .fires])
        #expect(try await counts.check([Self.check("fault-3", everyNth: 1, lucky: false)]) == [.passes])
        let seen = try await counts.counts(["fault-2", "fault-3"])
        #expect(seen["fault-2"]?.matched == 6 && seen["fault-2"]?.fired == 2)
        #expect(seen["fault-3"]?.matched == 1 && seen["fault-3"]?.fired == 0)
    }

    @Test func aNewWorldCountsAfresh() async throws {
        let counts = try await Self.counts()
        #expect(try await counts.check([Self.check("fault-1", count: 1)]) == [.firesLast])
        counts.keys.world.set("fresh")
        #expect(try await counts.check([Self.check("fault-1", count: 1)]) == [.firesLast], "a reset's rules are new rules")
    }
}
