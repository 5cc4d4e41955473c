import Logging
import PushlabCore
import PushlabDelivery
import PushlabRedis
import PushlabSimulator
import Synchronization

/// One Pushlab node of a cluster: it beats (`NodeHeartbeats`), works out which partitions of
/// phones are its share among the live nodes (`PartitionShare`), holds their leases
/// (`PartitionLeases`), and delivers their pushes (`PartitionDelivery`). A node that dies stops
/// beating and renewing: within the heartbeat timeout the others count it out, and once its
/// leases have run out they take its partitions, with the pushes it had read and not taken.
public final class ClusterNode: Sendable {
    public let id: String
    public let delivery: PartitionDelivery
    private let heartbeats: NodeHeartbeats
    private let leases: PartitionLeases
    private let beatInterval: Duration
    private let logger: Logger
    /// The heartbeats (`beat`), the share's leases (`manageShare`) and the rounds of delivery
    /// (`deliverRounds`), each on its own: a lease renewal or a round slowed by the engine (a
    /// master failing over) must not hold a heartbeat back, or the others would count this node
    /// out and take its phones.
    private let loops = Mutex<[Task<Void, Never>]>([])
    private let known = Mutex<[String]>([])
    /// The nodes the beats saw lately, each with how many successful beats ago, and how many
    /// successful beats are left of a grace that a failed beat starts: during it a node is
    /// forgotten only after `forgetAfter` beats in a row without it, so that a live list lost in
    /// a Redis master's failover (everyone stale at the first beat after it) does not make every
    /// node think it is alone. Otherwise the engine's list is the live list, and a dead node is
    /// out at the heartbeats' timeout.
    private let seen = Mutex<(beatsAgo: [String: Int], grace: Int)>(([:], 0))
    /// This node's control API, and every live node's as of the last beat.
    private let address = Mutex<String?>(nil)
    private let addresses = Mutex<[String: String]>([:])
    /// Where the tokens this node's phones make themselves go, for the other nodes' worlds.
    private let worldChanges: WorldChanges?
    /// Nodes started together wait for each other before taking phones (`expecting`).
    private let expectation: (nodes: Int, until: ContinuousClock.Instant)
    private let unpublished = Mutex<[PublishedChange]>([])
    private let publishing = AsyncLock()
    /// What the rounds wait on while no push comes.
    private let doorbells: PartitionDoorbells
    /// Which partitions' abandoned pushes are claimed at a beat.
    private let reclaims: Mutex<ReclaimSchedule>
    /// When the leases of the share were last renewed.
    private let lastRenewal = Mutex(ContinuousClock.Instant.now - .seconds(3600))

    /// Successful beats in a row that must miss a node, during a grace, before it counts as
    /// dead: the heartbeats' timeout, in beats (at least 2).
    private var forgetAfter: Int { max(2, Int((heartbeats.timeout / beatInterval).rounded(.up))) }

    /// `expectedNodes`: a node that has no partitions yet takes none until that many nodes are
    /// live, or `expectWait` has passed since it was made. Nodes started together then each make
    /// only their share of the phones, rather than the first making them all and letting most go
    /// (a hundred million phones would not fit one node).
    public init(
        id: String, delivery: PartitionDelivery, heartbeats: NodeHeartbeats, leases: PartitionLeases,
        beatInterval: Duration = .seconds(1), worldChanges: WorldChanges? = nil, expectedNodes: Int = 1, expectWait: Duration = .seconds(60),
        logger: Logger = Logger(label: "pushlab.cluster")
    ) {
        self.worldChanges = worldChanges
        expectation = (expectedNodes, ContinuousClock.now + expectWait)
        self.id = id
        self.delivery = delivery
        doorbells = PartitionDoorbells(client: delivery.engineClient, keys: delivery.keys)
        self.heartbeats = heartbeats
        self.leases = leases
        reclaims = Mutex(ReclaimSchedule(lease: leases.duration))
        self.beatInterval = beatInterval
        self.logger = logger
    }

    /// The live nodes at the last beat, sorted.
    public var nodes: [String] { known.withLock { $0 } }

    /// The partitions this node simulates now.
    public var owned: [Int] { delivery.owned }

    /// Whether this node waits for more nodes before it takes any phones (`expectedNodes`).
    public var isWaitingForNodes: Bool {
        delivery.owned.isEmpty && nodes.count < expectation.nodes && ContinuousClock.now < expectation.until
    }

    /// How many nodes it waits for, to take its share.
    public var expectedNodes: Int { expectation.nodes }

    /// Joins: one beat and its share taken (as far as the leases are free) before it returns,
    /// then beats and delivers until `stop`. `controlAddress`: where this node's control API
    /// answers (`http://host:port`), for the others to forward requests about its phones to.
    /// `adopt`: hears the history of the phones of each partition this node gains.
    public func start(controlAddress: String? = nil, adopt: PartitionDelivery.Adoption? = nil) async {
        address.withLock { $0 = controlAddress }
        delivery.attach(adopting: adopt)
        if worldChanges != nil {
            delivery.simulator.setTokenListener { [self] changes in unpublished.withLock { $0 += changes.map(PublishedChange.token) } }
        }
        await beat()
        await manageShare()
        let beating = every(beatInterval) { [self] in await beat() }
        let sharing = every(beatInterval) { [self] in await manageShare() }
        let delivering = Task { [self] in await deliverRounds() }
        loops.withLock { $0 = [beating, sharing, delivering] }
    }

    private func every(_ interval: Duration, _ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                await body()
            }
        }
    }

    /// Cancels the beats and the rounds, and waits for them to end.
    private func stopLoops() async {
        let tasks = loops.withLock { loops in
            defer { loops = [] }
            return loops
        }
        for task in tasks { task.cancel() }
        await doorbells.close()
        for task in tasks { await task.value }
    }

    /// Leaves: the last observations and takings written, the leases released and the node out
    /// of the live list, so that the others take its partitions at their next beat.
    public func stop() async {
        await stopLoops()
        await delivery.flush()
        for partition in delivery.owned {
            delivery.lose(partition)
            try? await leases.release(partition, by: id)
        }
        _ = try? await heartbeats.leave(id)
        // No one waits for a node that left to apply a change.
        try? await worldChanges?.forget(id)
        delivery.detach()
    }

    /// Whether this node simulates `deviceID`'s phone now.
    public func simulates(device deviceID: String) -> Bool { delivery.simulates(device: deviceID) }

    /// Every live node's control API, as of the last beat.
    public var controlAddresses: [String: String] { addresses.withLock { $0 } }

    /// Appends what this node made since the last time (tokens its phones made or retired) to
    /// the world's changes; the change's id, or nil when there was nothing (or the engine did
    /// not take it: it goes with the next).
    @discardableResult
    public func publishTokenChanges() async -> StreamID? {
        await publish([])
    }

    /// A channel this node's channel API created or deleted, in every node's world: true once
    /// every live node has it (or after 10 s, those that have not yet will), false when the
    /// engine did not take it.
    public func publish(channel change: ChannelChange) async -> Bool {
        guard let id = await publish([.channel(change)]) else { return false }
        await waitUntilApplied(id, for: .seconds(10))
        return true
    }

    private func publish(_ more: [PublishedChange]) async -> StreamID? {
        guard let worldChanges else { return nil }
        return await publishing.withLock {
            let changes = unpublished.withLock { changes in
                defer { changes = [] }
                return changes
            } + more
            guard !changes.isEmpty else { return nil }
            do {
                return try await worldChanges.append(method: "PUBLISH", path: id, body: PublishedChangeJSON.encode(changes), kind: .published).id
            } catch {
                logger.warning("The engine did not take \(changes.count) published change(s)", metadata: ["error": "\(error)"])
                // The tokens go with the next; a channel's creator answers 500 and undoes it.
                unpublished.withLock { $0 = changes.filter { if case .token = $0 { true } else { false } } + $0 }
                return nil
            }
        }
    }

    /// The live nodes that have not applied change `id` yet.
    public func nodesPending(_ id: StreamID) async throws(RedisError) -> [String] {
        guard let worldChanges else { return [] }
        let applied = try await worldChanges.applied()
        return nodes.filter { (applied[$0] ?? StreamID(milliseconds: 0, sequence: 0)) < id }
    }

    /// Waits until every live node has applied change `id`, for at most `limit`; the nodes that
    /// had not by then.
    @discardableResult
    public func waitUntilApplied(_ id: StreamID, for limit: Duration) async -> [String] {
        let deadline = ContinuousClock.now + limit
        var pending: [String] = []
        while true {
            pending = (try? await nodesPending(id)) ?? pending
            guard !pending.isEmpty, ContinuousClock.now < deadline else { return pending }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// What another node published (`publish`), into this node's world.
    public func applyPublished(_ body: [UInt8], from origin: String) {
        guard origin != id else { return }
        guard let changes = PublishedChangeJSON.decode(body) else {
            logger.error("Changes published by \(origin) cannot be read; this node's world goes without them")
            return
        }
        let world = delivery.simulator.world
        for change in changes {
            switch change {
            case .token(.register(let record)): world.register(record)
            case .token(.unregister(let token, let at)): world.unregister(token: token, at: at)
            case .channel(.created(let channel)): world.channels.add(channel)
            case .channel(.deleted(let channel)): world.channels.delete(channel.id, environment: channel.environment)
            }
        }
    }

    /// Goes to world `id` (a reset or a scenario load): `applying` puts the phones back while no
    /// push is delivered (`PartitionDelivery.startWorld`).
    public func startWorld(_ id: String, applying: @Sendable () async -> Void) async {
        await delivery.startWorld(id, applying: applying)
        // The new world's logs are other keys: their doorbells are sent at the next wait.
        doorbells.ring()
    }

    /// Where requests about `deviceID`'s phone are answered: here, when this node simulates it
    /// (every push accepted for it so far delivered first), or the node that does, and its
    /// control API's address. A partition between two nodes (one gave it up or died, the next
    /// has not taken it yet) is waited for up to `ownerWait`; then nobody, unless this node is
    /// the cluster's only one.
    public func route(device deviceID: String) async -> PhoneRoute {
        let partition = delivery.keys.partitions.partition(of: deviceID)
        let deadline = ContinuousClock.now + Self.ownerWait
        while true {
            if await delivery.settle(device: deviceID) { return .here }
            // This node's lease with the partition still being taken, or nobody's: a moment.
            if let holder = try? await leases.holder(of: partition), holder != id {
                if let known = addresses.withLock({ $0[holder] }) { return .node(holder, address: known) }
                if let fresh = try? await heartbeats.addresses() {
                    addresses.withLock { $0 = fresh }
                    if let address = fresh[holder] { return .node(holder, address: address) }
                }
            }
            guard ContinuousClock.now < deadline else { return nodes == [id] && !isWaitingForNodes ? .here : .nobody }
            try? await Task.sleep(for: .milliseconds(25))
        }
    }

    /// Where a request about a phone is answered.
    public enum PhoneRoute: Sendable, Equatable {
        case here
        case node(String, address: String)
        /// Between two nodes for longer than `ownerWait`.
        case nobody
    }

    /// How long a request waits for a partition that is between nodes.
    static let ownerWait = Duration.seconds(3)

    /// Stops at once, as `kill -9` would: nothing written, released or said (tests of failover).
    func halt() async {
        await stopLoops()
        delivery.detach()
    }

    private func deliverRounds() async {
        var idle = Duration.milliseconds(1)
        while !Task.isCancelled {
            let (delivered, _) = await delivery.round()
            await publishTokenChanges()
            if delivered > 0 {
                idle = .milliseconds(1)
                continue
            }
            // Nothing came: a pause that grows to 20 ms over empty rounds (a log that stays
            // non-empty rings its doorbell at once, and is then read at that pace), then the
            // doorbells, which the next push to a partition of this node rings. While the
            // pipeline still delivers what was read, the rounds go on at that pace to take it.
            try? await Task.sleep(for: idle)
            idle = min(idle * 2, .milliseconds(20))
            guard !Task.isCancelled else { return }
            if delivery.isTaking { continue }
            await doorbells.wait(for: delivery.owned, upTo: Self.idleWait)
        }
    }

    /// How long an idle node's rounds wait for a doorbell before they read every partition again.
    /// A partition gained and a new world ring at once, and a doorbell that failed (a failover)
    /// wakes the rounds after a pause, so this is only a safety net (a connection that hangs
    /// without failing).
    static let idleWait = Duration.seconds(30)

    /// Tells the engine this node is alive, and learns which nodes are (`nodes`).
    private func beat() async {
        var live: [String]
        do {
            let heard = try await heartbeats.beat(id, address: address.withLock { $0 })
            if let known = try? await heartbeats.addresses() { addresses.withLock { $0 = known } }
            live = seen.withLock { seen in
                for node in seen.beatsAgo.keys { seen.beatsAgo[node]! += 1 }
                for node in heard { seen.beatsAgo[node] = 0 }
                if seen.grace > 0 {
                    seen.grace -= 1
                    seen.beatsAgo = seen.beatsAgo.filter { $0.value < forgetAfter }
                } else {
                    seen.beatsAgo = seen.beatsAgo.filter { $0.value == 0 }
                }
                return seen.beatsAgo.keys.sorted()
            }
        } catch {
            // The master of the live list failing over: the leases (on other masters) are still
            // renewed, for the share as it was.
            logger.warning("The engine did not hear this node's heartbeat", metadata: ["error": "\(error)"])
            live = nodes.isEmpty ? [id] : nodes
            let forgetAfter = forgetAfter
            seen.withLock { $0.grace = forgetAfter }
        }
        if live != nodes { logger.info("Cluster nodes: \(live.joined(separator: ", "))") }
        known.withLock { $0 = live }
    }

    /// Holds the leases of its share among the live nodes, takes what is newly its share and
    /// gives up what is no longer.
    private func manageShare() async {
        let live = nodes.isEmpty ? [id] : nodes
        // Until the nodes started with it are live, its share would be theirs too.
        let wanted = isWaitingForNodes ? [] : Set(PartitionShare(partitions: delivery.keys.partitions, nodes: live).partitions(of: id))
        let owned = Set(delivery.owned)
        // Renewed at a third of the lease, not at every beat: a node that renews late by less
        // than two thirds keeps its phones. Before anything waits for a round (`flush`), all at
        // once: the leases must not run out while one master fails over.
        let now = ContinuousClock.now
        let renewing = lastRenewal.withLock { last in
            guard now - last >= leases.duration / 3 else { return false }
            last = now
            return true
        }
        let renewed = renewing ? await leases.hold(owned.intersection(wanted).sorted(), for: id) : [:]
        for (partition, outcome) in renewed.sorted(by: { $0.key < $1.key }) {
            switch outcome {
            case .success(true): break
            case .success(false): delivery.lose(partition)
            case .failure(let error): logger.warning("Renewing partition \(partition) failed", metadata: ["error": "\(error)"])
            }
        }
        let given = owned.subtracting(wanted)
        if !given.isEmpty {
            // What their phones observed is written before they go.
            await delivery.flush()
            for partition in given.sorted() {
                delivery.lose(partition)
                do {
                    try await leases.release(partition, by: id)
                } catch {
                    logger.warning("Giving partition \(partition) up failed; its lease runs out", metadata: ["error": "\(error)"])
                }
            }
        }
        var held: [Int] = []
        for partition in wanted.subtracting(owned).sorted() {
            do {
                if try await leases.hold(partition, for: id) { held.append(partition) }
            } catch {
                logger.warning("Taking partition \(partition) failed", metadata: ["error": "\(error)"])
            }
        }
        do {
            try await delivery.gain(held)
        } catch {
            logger.warning("Taking partitions \(held) failed", metadata: ["error": "\(error)"])
        }
        // A failover's pushes to the gained phones are read now, not after an idle wait.
        if !held.isEmpty { doorbells.ring() }
        // A push another node read after this one took its partition is idle there for good.
        let due = reclaims.withLock { schedule in
            schedule.gain(held)
            return schedule.due(owned: delivery.owned)
        }
        await delivery.reclaim(due, idleFor: leases.duration)
    }
}
