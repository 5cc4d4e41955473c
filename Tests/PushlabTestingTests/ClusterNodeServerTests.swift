import Foundation
import PushlabClient
import PushlabTesting
import RedisTestServers
import Testing

/// Two test servers as the nodes of one cluster on a Redis Cluster: a push sent to either
/// reaches its phone on the node that simulates it.
@Suite("Test servers as the nodes of a cluster")
struct ClusterNodeServerTests {
    private static let defaultScenario = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scenarios/default.yaml").path

    @Test func aPushToEitherNodeReachesThePhoneWhereItIsSimulated() async throws {
        let redis = try await RedisServers.sharedCluster()
        let prefix = "testing-\(UInt32.random(in: 0...UInt32.max))"
        func node(_ id: String) -> PushlabTestServer.ClusterNode {
            PushlabTestServer.ClusterNode(seeds: redis.endpoints.map(\.description), nodeID: id, expectedNodes: 2, partitions: 8, keyPrefix: prefix)
        }
        let a = try await PushlabTestServer.start(scenario: Self.defaultScenario, cluster: node("node-a"))
        let b = try await PushlabTestServer.start(scenario: Self.defaultScenario, cluster: node("node-b"))
        #expect((a.clusterNodeID, b.clusterNodeID) == ("node-a", "node-b"))
        #expect(a.controlURL != nil && b.controlURL != nil, "each node's control API listens for the other's requests")

        // Each node makes only its share of the scenario's phones: ann is made on one of them.
        let deadline = ContinuousClock.now + .seconds(20)
        while a.simulator.device("ann") == nil && b.simulator.device("ann") == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let owner = try #require([a, b].first { $0.simulator.device("ann") != nil }, "a node took ann's partition")
        let other = owner === a ? b : a
        #expect(other.simulator.device("ann") == nil, "and only one")
        let token = try #require(owner.deviceToken(of: "ann"))

        for (sender, body) in [(other, "Via the other node"), (owner, "Via its own node")] {
            let client = try await ProviderClient.connect(to: sender)
            let answer = try await client.send(ProviderClient.alert(
                #"{"aps":{"alert":{"title":"Cluster","body":"\#(body)"}}}"#, to: token, topic: PushlabTestServer.defaultBundleID,
                providerToken: try sender.providerToken()
            ))
            await client.close()
            #expect(answer.status == 200, "\(body): \(answer.status) \(answer.reason ?? "")")
            let apnsID = try #require(answer.apnsID)
            let banner = try await owner.waitForObservation(device: "ann", kind: .banner, timeout: .seconds(20)) { $0.notificationID == apnsID }
            #expect(banner.event == .banner(title: "Cluster", subtitle: nil, body: body, actions: []))
        }
        #expect(other.observations(device: "ann").isEmpty, "the other node observed nothing of ann")
        await a.stop()
        await b.stop()
    }
}
