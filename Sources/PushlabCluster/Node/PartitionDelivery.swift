import Foundation
import Logging
import PushlabCore
import PushlabDelivery
import PushlabRedis
import PushlabSimulator
import PushlabStore
import Synchronization

/// A node's side of the partitions it simulates: the cluster's half of delivering them. The
/// reading, the hand-off to the phones and the takings are `PartitionReader`'s, on the engine's
/// logs (`EnginePartitionLog`); what is the cluster's own is here: gaining a partition (its
/// phones made as the last node left them, its history, what the last node read and did not
/// take), losing one (its phones let go), and a new world's keys.
public final class PartitionDelivery: Sendable {
    public let node: String
    private let log: EnginePushLog
    /// Reads, delivers and takes the partitions this node simulates.
    public let reader: PartitionReader<EnginePartitionLog>
    var simulator: DeviceSimulator { reader.simulator }
    private let logger: Logger
    private let sinkID = Mutex<Int?>(nil)
    /// Where the observations of a gained partition's phones go (the control API's history).
    private let adopt = Mutex<AdoptionHook?>(nil)

    /// The partitions' leases' duration: a taking renews a lease a failover lost.
    public let lease: Duration

    public init(
        node: String, log: EnginePushLog, pipeline: DeliveryPipeline, lease: Duration = .seconds(3), logger: Logger = Logger(label: "pushlab.cluster")
    ) {
        self.node = node
        self.lease = lease
        self.log = log
        self.logger = logger
        reader = PartitionReader(
            log: EnginePartitionLog(log: log, node: node, lease: lease, logger: logger), pipeline: pipeline, partitions: log.keys.partitions, logger: logger
        )
        reader.onLost { [weak self] partition in self?.releasePhones(of: partition) }
    }

    public var keys: EngineKeys { log.keys }

    /// The engine's client, for what waits on the partitions' logs (`PartitionDoorbells`).
    var engineClient: RedisClusterClient { log.client }

    /// Hears the history of the phones of a partition this node gains: it replaces what the
    /// history holds of the phones `devices` accepts (this node's copies may have observed what
    /// the engine never got).
    public typealias Adoption = @Sendable (_ history: [Observation], _ devices: @escaping @Sendable (String) -> Bool) -> Void

    /// The reader becomes one of the simulator's sinks (once); `adopt` hears the history of the
    /// phones of each partition this node gains.
    func attach(adopting adopt: Adoption? = nil) {
        self.adopt.withLock { $0 = adopt.map(AdoptionHook.init) }
        sinkID.withLock { id in
            if id == nil { id = simulator.addSink(reader) }
        }
    }

    /// No longer hears the simulator.
    func detach() {
        if let id = sinkID.withLock({ id in defer { id = nil }; return id }) { simulator.removeSink(id) }
    }

    /// The partitions simulated here now, in order.
    public var owned: [Int] { reader.held }

    /// Starts simulating `partitions` (their leases are this node's): their phones are made
    /// first, as the last node wrote them, in one pass over the scenario's; then what another
    /// node read and did not take, and what this node read before a restart, comes first, as
    /// resumed pushes.
    public func gain(_ partitions: [Int]) async throws {
        guard !partitions.isEmpty else { return }
        try await reader.withTurn {
            try await log.prepare(partitions: partitions)
            let phones = try await restorePhones(of: partitions)
            logger.info("Made \(phones) phone(s) of partition(s) \(partitions.map(String.init).joined(separator: ", "))")
            for partition in partitions {
                let history = try await restoreHistory(of: partition)
                let abandoned = try await reader.log.claimAbandoned(partition: partition, minIdle: .zero, count: 100_000)
                reader.hold(partition, resuming: abandoned)
                logger.info("Took partition \(partition): \(history) observation(s) from the engine, \(abandoned.count) push(es) left untaken")
            }
        }
    }

    /// What the partition's phones observed on the nodes before, for this node's history; its
    /// numbering goes on after theirs, so that a phone's observations stay in order.
    @discardableResult
    private func restoreHistory(of partition: Int) async throws -> Int {
        guard let adopt = adopt.withLock({ $0 })?.adopt else { return 0 }
        let answer = try await log.client.send(
            RESPCommand("XRANGE", RESPArgument(keys.observations(partition)), "-", "+"), slot: keys.slot(partition)
        )
        var history: [Observation] = []
        for entry in answer.elements ?? [] {
            guard let batch = entry.elements?.last?.pairs?.first(where: { $0.key.text == "batch" })?.value.bytes,
                  let observations = Self.decode(batch) else { continue }
            history += observations
        }
        if let last = history.map(\.sequence).max() { simulator.resumeSequence(after: last) }
        let partitions = keys.partitions
        adopt(history) { partitions.partition(of: $0) == partition }
        return history.count
    }

    /// Makes the partitions' phones: the scenario's, each in place of which the engine has the
    /// phone as its last node wrote it (`EngineKeys.devices`), with its apps' states, and each
    /// with the Notification Center entries the engine holds for it
    /// (`EngineKeys.notificationCenters`).
    private func restorePhones(of gained: [Int]) async throws -> Int {
        var saved: [SimulatedDevice] = []
        var removed: [String] = []
        var entries: EngineNotificationCenters.ByPhone = [:]
        let decoder = JSONDecoder()
        for partition in gained {
            let answer = try await log.client.send(RESPCommand("HGETALL", RESPArgument(keys.devices(partition))), slot: keys.slot(partition))
            var savedHere: [SimulatedDevice] = []
            for (id, value) in answer.pairs ?? [] {
                guard let id = id.text, let bytes = value.bytes else { continue }
                if bytes.isEmpty {
                    removed.append(id)
                } else if let device = try? decoder.decode(SimulatedDevice.self, from: Data(bytes)) {
                    savedHere.append(device)
                } else {
                    logger.error("Device \(id) of partition \(partition) cannot be read from the engine; the scenario's phone stands in for it")
                }
            }
            let found = try await notificationCenters(of: partition)
            try await moveEntriesOut(of: savedHere.filter { found[$0.id] == nil }, partition: partition)
            saved += savedHere
            entries.merge(found) { $1 }
        }
        let partitions = keys.partitions
        let wanted = Set(gained)
        return simulator.adopt(where: { wanted.contains(partitions.partition(of: $0)) }, saved: saved, removed: removed, notificationCenters: entries)
    }

    private func notificationCenters(of partition: Int) async throws -> EngineNotificationCenters.ByPhone {
        let answer = try await log.client.send(RESPCommand("HGETALL", RESPArgument(keys.notificationCenters(partition))), slot: keys.slot(partition))
        let pairs = (answer.pairs ?? []).compactMap { field, value in field.text.flatMap { text in value.bytes.map { (text, $0) } } }
        let (entries, unreadable) = EngineNotificationCenters.entries(pairs)
        if unreadable > 0 { logger.error("\(unreadable) Notification Center entr(y/ies) of partition \(partition) cannot be read from the engine and are left out") }
        return entries
    }

    /// Phones an earlier version wrote with their Notification Center entries inside: the
    /// entries move to the partition's entries, and the phones are written without them (else a
    /// removal of an entry, later, would leave it in the phone's state).
    private func moveEntriesOut(of phones: [SimulatedDevice], partition: Int) async throws {
        var entryFields: [(String, [UInt8])] = []
        var phoneFields: [(String, [UInt8])] = []
        for phone in phones where phone.apps.contains(where: { !$0.notificationCenter.isEmpty }) {
            guard let snapshot = try? DeviceSnapshot.encode(phone) else { continue }
            let byApp = Dictionary(phone.apps.map { ($0.bundleID, $0.notificationCenter) }, uniquingKeysWith: { first, _ in first })
            entryFields += EngineNotificationCenters.fields(deviceID: phone.id, entries: byApp)
            phoneFields.append((phone.id, snapshot))
        }
        guard !phoneFields.isEmpty else { return }
        var writes: [EngineWrite] = [.setFields(hash: keys.devices(partition), fields: phoneFields)]
        if !entryFields.isEmpty { writes.append(.setFields(hash: keys.notificationCenters(partition), fields: entryFields)) }
        try await log.take(partition: partition, ids: [], by: node, lease: lease, writes: writes)
    }

    /// Whether this node simulates `deviceID`'s phone now.
    public func simulates(device deviceID: String) -> Bool {
        reader.holds(keys.partitions.partition(of: deviceID))
    }

    /// Goes to world `id`, a reset or a scenario load that every node applies (`WorldChanges`):
    /// what the phones observed so far is written to the old world, then the keys are the new
    /// world's and `applying` puts the phones back as the scenario has them, with no push read
    /// or delivered meanwhile. What was read of the old world and not taken stays there.
    public func startWorld(_ id: String, applying: @Sendable () async -> Void) async {
        await reader.withTurn {
            let partitions = await reader.startAfresh()
            keys.world.set(id)
            await applying()
            do {
                try await log.prepare(partitions: partitions)
            } catch {
                // A read that finds no group makes it (`EnginePartitionLog.readNew`).
                logger.warning("Preparing the new world's logs failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Stops simulating `partition` at once (a round busy with the engine is not waited for: a
    /// lost lease must not hold the node's beats back): what was read and not taken stays in the
    /// engine for the next owner to claim, and its phones are let go.
    public func lose(_ partition: Int) {
        reader.drop(partition)
        releasePhones(of: partition)
    }

    private func releasePhones(of partition: Int) {
        let partitions = keys.partitions
        let phones = simulator.release { partitions.partition(of: $0) == partition }
        logger.info("Gave partition \(partition) up, and its \(phones) phone(s)")
    }

    /// Reads each owned partition's new pushes into the pipeline and writes what was observed
    /// with the takings (`PartitionReader.round`); partitions found lost are let go and returned.
    @discardableResult
    public func round() async -> (delivered: Int, lost: [Int]) {
        let (read, lost) = await reader.round()
        return (read, lost)
    }

    /// Pushes were read and not yet taken, or observations wait to be written.
    public var isTaking: Bool { reader.isTaking }

    /// Claims what another consumer read and has not taken for `minIdle` (`PartitionReader.reclaim`).
    public func reclaim(_ partitions: [Int], idleFor minIdle: Duration) async {
        await reader.reclaim(partitions, idleFor: minIdle)
    }

    /// Delivers every push accepted so far for `deviceID`'s phone, if this node simulates it: a
    /// read of the phone after this sees every push that was answered 200 before it. False when
    /// another node simulates the phone.
    public func settle(device deviceID: String) async -> Bool {
        await reader.settle(keys.partitions.partition(of: deviceID))
    }

    /// Delivers every push accepted so far in every partition simulated here.
    public func settleAll() async {
        await reader.settleAll()
    }

    /// Writes every partition's observations and takings; returns the partitions found lost.
    @discardableResult
    public func flush() async -> [Int] {
        await reader.flush()
    }

    /// The observations of one stream entry: a chunk (`ObservationBlob`), or a JSON array
    /// (`Observation.json`) as nodes of an earlier version wrote them.
    public static func decode(_ bytes: [UInt8]) -> [Observation]? {
        if bytes.first == UInt8(ascii: "[") {
            guard case .array(let values) = try? JSONParser.parse(bytes) else { return nil }
            let observations = values.compactMap(Observation.init(json:))
            return observations.count == values.count ? observations : nil
        }
        return try? ObservationBlob.decode(bytes)
    }
}

/// `PartitionDelivery.Adoption` behind a reference: a `Mutex` holding the closure itself would
/// wrap it in another reabstraction thunk at every access.
final class AdoptionHook: Sendable {
    let adopt: PartitionDelivery.Adoption

    init(_ adopt: @escaping PartitionDelivery.Adoption) {
        self.adopt = adopt
    }
}
