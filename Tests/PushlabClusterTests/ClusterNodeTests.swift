@testable import PushlabCluster
import Foundation
import PushlabCore
import PushlabDelivery
import PushlabRedis
import PushlabSimulator
import Synchronization
import RedisTestServers
import Testing

/// Nodes sharing one world of phones on the engine: each push reaches its phone on the node
/// that simulates its partition, once, and a dead node's phones and pushes go to the others.
@Suite(.serialized)
struct ClusterNodeTests {
    static let app = "com.example.app"
    static let phones = (0..<24).map { "phone-\($0)" }

    static func token(_ phone: String) -> String {
        let number = String(Int(phone.dropFirst("phone-".count))!, radix: 16)
        return String(repeating: "0", count: 64 - number.count) + number
    }

    /// One node: its own world (every phone's tokens) and simulator (the phones of its share, as
    /// a cluster node makes them), its observations, and its engine client.
    final class Node: Sendable {
        let world = APNsWorld()
        let simulator: DeviceSimulator
        /// Queued, as `pushlab serve` runs a node: the worker delivers what the rounds read.
        let pipeline: DeliveryPipeline
        let worker: DeliveryWorker
        let observed = InMemoryObservationLog()
        let client: RedisClusterClient
        let node: ClusterNode
        let sink: EnginePushSink
        private let ids = Mutex(APNsIDGenerator())

        init(_ id: String, servers: RedisServers, keys: EngineKeys, expecting: Int = 1) async throws {
            simulator = DeviceSimulator(world: world, tokenSeed: 47)
            let made = MadeNode()
            simulator.setSimulatedHere { id in made.node.withLock { $0 }?.simulates(device: id) ?? false }
            pipeline = DeliveryPipeline(simulator: simulator)
            worker = DeliveryWorker(pipeline: pipeline, capacity: 10_000)
            client = try await EngineTests.connect(to: servers)
            let delivery = PartitionDelivery(node: id, log: EnginePushLog(client: client, keys: keys), pipeline: pipeline, lease: .milliseconds(600))
            node = ClusterNode(
                id: id, delivery: delivery, heartbeats: NodeHeartbeats(client: client, keys: keys, timeout: .milliseconds(600)),
                leases: PartitionLeases(client: client, keys: keys, duration: .milliseconds(600)), beatInterval: .milliseconds(150),
                expectedNodes: expecting
            )
            sink = EnginePushSink(intake: EngineIntake(client: client, keys: keys))
            made.node.withLock { $0 = node }
            let phones = ClusterNodeTests.phones.map { phone in
                SimulatedDevice(id: phone, apps: [AppInstall(bundleID: ClusterNodeTests.app, deviceToken: ClusterNodeTests.token(phone), state: .background)])
            }
            try simulator.replaceAll(sharing: ScenarioPhones(listed: phones))
            _ = simulator.addSink(observed)
        }

        func push(to phone: String, body: String, at time: EpochMilliseconds) throws -> AcceptedPush {
            let token = ClusterNodeTests.token(phone)
            return AcceptedPush(
                apnsID: APNsID(ids.withLock { $0.nextUUID() }), receivedAt: time, environment: .development, deviceToken: token,
                registration: world.token(token), topic: ClusterNodeTests.app, bundleID: ClusterNodeTests.app, pushType: .alert,
                priority: 10, expiration: nil, collapseID: nil, payload: nil, rawPayload: Array(body.utf8), isDeliverable: true, connectionID: 1
            )
        }

        func admit(_ pushes: [AcceptedPush]) async -> [AdmissionVerdict] {
            await withCheckedContinuation { continuation in
                sink.decide(pushes.map(SinkItem.push), limit: nil) { continuation.resume(returning: $0) }
            }
        }

        func banners(on phone: String) -> [Observation] { observed.observations(device: phone, kind: .banner) }

        deinit { worker.stop() }
    }

    /// The node a simulator is made for, once it is made.
    final class MadeNode: Sendable {
        let node = Mutex<ClusterNode?>(nil)
    }

    static func keys() -> EngineKeys {
        EngineKeys(prefix: "nodes-\(UInt32.random(in: 0...UInt32.max))", partitions: DevicePartitions(count: 12))
    }

    /// node-a and node-b on keys of their own, started, each with its share taken.
    static func twoNodes() async throws -> (a: Node, b: Node, keys: EngineKeys, share: PartitionShare) {
        let servers = try await RedisServers.sharedCluster()
        let keys = Self.keys()
        let a = try await Node("node-a", servers: servers, keys: keys)
        let b = try await Node("node-b", servers: servers, keys: keys)
        await a.node.start()
        await b.node.start()
        let share = PartitionShare(partitions: keys.partitions, nodes: ["node-a", "node-b"])
        let settled = try await eventually { a.node.owned == share.partitions(of: "node-a") && b.node.owned == share.partitions(of: "node-b") }
        try #require(settled, "each node took its share")
        return (a, b, keys, share)
    }

    /// Until `condition` holds, for at most `limit` (a condition, not a timing assertion).
    static func eventually(within limit: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    @Test func eachPushReachesItsPhoneOnTheNodeThatSimulatesIt() async throws {
        let (a, b, keys, share) = try await Self.twoNodes()
        #expect(!a.node.owned.isEmpty && !b.node.owned.isEmpty, "each has a share")
        let phonesOfA = Self.phones.filter { share.owner(of: keys.partitions.partition(of: $0)) == "node-a" }
        #expect(a.simulator.devices.map(\.id) == phonesOfA.sorted() && b.simulator.deviceCount == Self.phones.count - phonesOfA.count, "each node made only its share of the phones")
        #expect(Self.phones.allSatisfy { a.world.token(Self.token($0))?.deviceID == $0 && b.world.token(Self.token($0))?.deviceID == $0 }, "and knows every phone's token")

        // Both nodes take pushes for every phone.
        let pushes = try Self.phones.flatMap { phone in [try a.push(to: phone, body: #"{"aps":{"alert":"1"}}"#, at: 1_000), try b.push(to: phone, body: #"{"aps":{"alert":"2"}}"#, at: 1_001)] }
        #expect(await a.admit(pushes.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)).allSatisfy { $0 == .accepted })
        #expect(await b.admit(pushes.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)).allSatisfy { $0 == .accepted })

        func owner(_ phone: String) -> Node { share.owner(of: keys.partitions.partition(of: phone)) == "node-a" ? a : b }
        func other(_ phone: String) -> Node { owner(phone) === a ? b : a }
        #expect(try await Self.eventually { Self.phones.allSatisfy { owner($0).banners(on: $0).count == 2 } })
        for phone in Self.phones {
            #expect(owner(phone).banners(on: phone).map { $0.event.details["body"]?.stringValue } == ["1", "2"], "in the order accepted: \(phone)")
            #expect(other(phone).banners(on: phone).isEmpty && other(phone).simulator.device(phone) == nil, "the other node never made \(phone)")
        }
        // Taken, with the observations in the engine beside them.
        let log = EnginePushLog(client: a.client, keys: keys)
        #expect(try await Self.eventually { try await (0..<12).asyncReduce(0) { $0 + (try await log.untakenCount(partition: $1)) } == 0 })
        let observations = try await (0..<12).asyncReduce(0) { sum, partition in
            let entries = try await a.client.send(RESPCommand("XRANGE", RESPArgument(keys.observations(partition)), "-", "+"), slot: keys.slot(partition))
            return sum + (entries.elements ?? []).compactMap { $0.elements?.last?.elements?.last?.bytes }.compactMap(PartitionDelivery.decode).reduce(0) { $0 + $1.filter { $0.kind == .banner }.count }
        }
        #expect(observations == 48, "every banner is in the engine once")
        await a.node.stop()
        await b.node.stop()
    }

    /// node-b dies (no leave, no release) with pushes read and not taken: node-a takes its
    /// partitions once the leases run out, delivers those pushes (after a restart, they say)
    /// and the ones that come meanwhile, each once.
    @Test func aDeadNodesPhonesAndPushesGoToTheOthers() async throws {
        let (a, b, keys, share) = try await Self.twoNodes()
        let phonesOfB = Self.phones.filter { share.owner(of: keys.partitions.partition(of: $0)) == "node-b" }
        try #require(!phonesOfB.isEmpty)

        await b.node.halt()
        // Read by node-b just before it died, never taken.
        let read = try b.push(to: phonesOfB[0], body: #"{"aps":{"alert":"read"}}"#, at: 2_000)
        #expect(await a.admit([read]) == [.accepted])
        let log = EnginePushLog(client: a.client, keys: keys)
        let partition = keys.partitions.partition(of: phonesOfB[0])
        #expect(try await log.readNew(partition: partition, consumer: "node-b", count: 10).count == 1)
        // Accepted while node-b is dead.
        #expect(await a.admit(try phonesOfB.map { try a.push(to: $0, body: #"{"aps":{"alert":"later"}}"#, at: 2_001) }).allSatisfy { $0 == .accepted })

        #expect(try await Self.eventually(within: .seconds(5)) { phonesOfB.allSatisfy { !a.banners(on: $0).isEmpty } }, "within 5 s node-a simulates node-b's phones")
        #expect(try await Self.eventually { a.banners(on: phonesOfB[0]).count == 2 })
        let first = a.banners(on: phonesOfB[0])
        #expect(first.map { $0.event.details["body"]?.stringValue } == ["read", "later"])
        #expect(first[0].afterRestart && !first[1].afterRestart, "the claimed push says it came after a restart")
        for phone in phonesOfB.dropFirst() { #expect(a.banners(on: phone).count == 1, "\(phone): once") }
        #expect(a.node.owned == Array(0..<12))
        #expect(a.simulator.deviceCount == Self.phones.count, "node-a made node-b's phones when it took their partitions")
        await a.node.stop()
    }
}

extension Sequence {
    func asyncReduce<Result>(_ initial: Result, _ next: (Result, Element) async throws -> Result) async rethrows -> Result {
        var result = initial
        for element in self { result = try await next(result, element) }
        return result
    }
}

extension ClusterNodeTests {
    /// A phone's state lives in the engine with the pushes taken: a push stored while the phone
    /// was offline on a node that then died reaches the phone when it comes online on the next.
    @Test func aDeadNodesPhonesKeepWhatTheyHeld() async throws {
        let (a, b, keys, share) = try await Self.twoNodes()
        let phone = try #require(Self.phones.first { share.owner(of: keys.partitions.partition(of: $0)) == "node-b" })

        _ = try b.simulator.updateDevice(phone, online: false)
        // Stored for 30 days from now by default: the phones run on real time here.
        #expect(await a.admit([try a.push(to: phone, body: #"{"aps":{"alert":"kept"}}"#, at: SystemClock().now())]) == [.accepted])
        #expect(try await Self.eventually { !b.observed.observations(device: phone, kind: .stored).isEmpty }, "stored for the offline phone on node-b")
        #expect(try await Self.eventually { try await EnginePushLog(client: a.client, keys: keys).untakenCount(partition: keys.partitions.partition(of: phone)) == 0 })
        await b.node.halt()

        #expect(try await Self.eventually { a.node.owned.contains(keys.partitions.partition(of: phone)) })
        #expect(a.simulator.device(phone)?.online == false, "node-a made the phone node-b left")
        _ = try a.simulator.updateDevice(phone, online: true)
        #expect(a.banners(on: phone).map { $0.event.details["body"]?.stringValue } == ["kept"], "the held push reaches the phone once")
        await a.node.stop()
    }

    /// `--cluster-expect 2`: the first node up takes no phones while it is alone (it would make
    /// every one, only to let half go), and both take their shares once the second is live.
    @Test func nodesStartedTogetherWaitForEachOtherBeforeTakingPhones() async throws {
        let servers = try await RedisServers.sharedCluster()
        let keys = Self.keys()
        let a = try await Node("node-a", servers: servers, keys: keys, expecting: 2)
        await a.node.start()
        try await Task.sleep(for: .milliseconds(500))
        #expect(a.node.isWaitingForNodes && a.node.owned.isEmpty && a.simulator.deviceCount == 0, "alone, it takes nothing")
        let b = try await Node("node-b", servers: servers, keys: keys, expecting: 2)
        await b.node.start()
        let share = PartitionShare(partitions: keys.partitions, nodes: ["node-a", "node-b"])
        #expect(try await Self.eventually { a.node.owned == share.partitions(of: "node-a") && b.node.owned == share.partitions(of: "node-b") })
        #expect(!a.node.isWaitingForNodes && a.simulator.deviceCount + b.simulator.deviceCount == Self.phones.count)
        await a.node.stop()
        await b.node.stop()
    }
}

extension ClusterNodeTests {
    /// A phone's Notification Center lives in the engine an entry at a time: the node that takes
    /// a dead node's phones finds each entry the phones still had, in order, and none that was
    /// dismissed or whose phone was removed; and a phone whose only change was its
    /// Notification Center has no state of its own written.
    @Test func aDeadNodesPhonesKeepTheirNotificationCenters() async throws {
        let (a, b, keys, share) = try await Self.twoNodes()
        let phonesOfB = Self.phones.filter { share.owner(of: keys.partitions.partition(of: $0)) == "node-b" }
        try #require(phonesOfB.count >= 2)
        let (phone, removed) = (phonesOfB[0], phonesOfB[1])

        let pushes = try ["one", "two", "three"].enumerated().map { n, body in
            try a.push(to: phone, body: #"{"aps":{"alert":{"title":"\#(body)"}}}"#, at: 3_000 + Int64(n))
        }
        #expect(await a.admit(pushes + [try a.push(to: removed, body: #"{"aps":{"alert":"gone"}}"#, at: 3_010)]).allSatisfy { $0 == .accepted })
        #expect(try await Self.eventually { b.banners(on: phone).count == 3 && b.banners(on: removed).count == 1 })
        try b.simulator.interact(.dismiss(bundleID: Self.app, notificationID: pushes[1].apnsID), on: phone)
        try b.simulator.removeDevice(removed)
        let hash = keys.notificationCenters(keys.partitions.partition(of: phone))
        let slot = keys.slot(keys.partitions.partition(of: phone))
        let phonePrefix = EngineNotificationCenters.devicePrefix(phone)
        #expect(try await Self.eventually {
            let fields = try await a.client.send(RESPCommand("HKEYS", RESPArgument(hash)), slot: slot).elements?.compactMap(\.text) ?? []
            return fields.filter { $0.hasPrefix(phonePrefix) }.count == 2
        }, "the dismissal is written")
        let removedFields = try await a.client.send(
            RESPCommand("HKEYS", RESPArgument(keys.notificationCenters(keys.partitions.partition(of: removed)))), slot: keys.slot(keys.partitions.partition(of: removed))
        )
        #expect(!(removedFields.elements ?? []).contains { $0.text?.hasPrefix(EngineNotificationCenters.devicePrefix(removed)) == true })
        let state = try await a.client.send(RESPCommand("HEXISTS", RESPArgument(keys.devices(keys.partitions.partition(of: phone))), RESPArgument(phone)), slot: slot)
        #expect(state.integer == 0, "alerts to a phone in the background change nothing but its Notification Center")
        await b.node.halt()

        #expect(try await Self.eventually { a.node.owned.contains(keys.partitions.partition(of: phone)) && a.simulator.device(phone) != nil })
        let entries = try #require(a.simulator.device(phone)?.app(Self.app)?.notificationCenter)
        #expect(entries.map(\.content.title) == ["one", "three"])
        #expect(entries.map(\.identifier) == [pushes[0].apnsID, pushes[2].apnsID])
        #expect(entries == b.simulator.device(phone)?.app(Self.app)?.notificationCenter)
        #expect(a.simulator.device(removed) == nil, "the removed phone stays removed")
        await a.node.stop()
    }
}

extension ClusterNodeTests {
    /// An earlier version wrote a phone whole, its entries inside: the node that gains it keeps
    /// them, and moves them to the entries of the partition, so that a later dismissal sticks.
    @Test func phonesWrittenWithTheirEntriesInsideKeepThem() async throws {
        let servers = try await RedisServers.sharedCluster()
        let keys = Self.keys()
        let a = try await Node("node-a", servers: servers, keys: keys)
        let phone = Self.phones[0]
        let partition = keys.partitions.partition(of: phone), slot = keys.slot(keys.partitions.partition(of: phone))
        var written = SimulatedDevice(id: phone, apps: [AppInstall(bundleID: Self.app, deviceToken: Self.token(phone), state: .background, badge: 4)])
        written.apps[0].notificationCenter = [DeliveredNotification(
            identifier: "8d3c7a6e-0000-4000-8000-000000000001", isLocal: false, collapseID: nil, content: NotificationContent(title: "kept"),
            deliveredAt: 1_000, trigger: "push"
        )]
        _ = try await a.client.send(
            RESPCommand("HSET", RESPArgument(keys.devices(partition)), RESPArgument(phone), RESPArgument(bytes: Array(try JSONEncoder().encode(written)))), slot: slot
        )
        await a.node.start()
        #expect(try await Self.eventually { a.node.owned.contains(partition) && a.simulator.device(phone) != nil })
        let made = try #require(a.simulator.device(phone)?.app(Self.app))
        #expect(made.badge == 4 && made.notificationCenter.map(\.content.title) == ["kept"])

        let entries = try await a.client.send(RESPCommand("HLEN", RESPArgument(keys.notificationCenters(partition))), slot: slot)
        #expect(entries.integer == 1, "the entry moved to the partition's entries")
        let state = try await a.client.send(RESPCommand("HGET", RESPArgument(keys.devices(partition)), RESPArgument(phone)), slot: slot)
        let rewritten = try JSONDecoder().decode(SimulatedDevice.self, from: Data(try #require(state.bytes)))
        #expect(rewritten.app(Self.app)?.badge == 4 && rewritten.app(Self.app)?.notificationCenter.isEmpty == true)
        await a.node.stop()
    }
}
