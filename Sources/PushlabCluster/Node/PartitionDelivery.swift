import Foundation
import Logging
import PushlabCore
import PushlabDelivery
import PushlabRedis
import PushlabSimulator
import PushlabStore
import Synchronization

/// A node's side of the partitions it simulates: it reads their pushes from the engine in the
/// order they were accepted, hands them to its phones through the delivery pipeline a single
/// process uses (`DeliveryPipeline.deliver(logged:resumed:)`: the same queue, worker, pacing and
/// hand-off to the simulator), and takes them together with what the phones observed, in one
/// script that first checks that the node still holds the partition (`EnginePushLog.take`). So
/// a push is taken once, by the node whose phones took it, and the engine never has a taking
/// without its observations.
///
/// It is also one of the simulator's sinks: every observation of a phone it simulates (a push's,
/// a tap's, a timer's) goes to the partition's stream of observations (`EngineKeys.observations`)
/// at the next `round`.
public final class PartitionDelivery: ObservationSink {
    public let node: String
    private let log: EnginePushLog
    /// Where the pushes read go to their phones.
    let pipeline: DeliveryPipeline
    var simulator: DeviceSimulator { pipeline.simulator }
    private let logger: Logger
    private let state = Mutex(State())
    private let sinkID = Mutex<Int?>(nil)
    /// Where the observations of a gained partition's phones go (the control API's history).
    private let adopt = Mutex<AdoptionHook?>(nil)
    /// Batches of observations a partition's stream keeps (about): its phones' history, read by
    /// whichever node simulates them next.
    static let keptBatches = 10_000
    /// Reading, delivering and writing go one at a time: the loop's rounds, a settle before a
    /// control API request, a gain's claim. Two readers of one partition would deliver its
    /// pushes out of order.
    private let turns = AsyncLock()
    /// How many pushes a partition's read takes at most.
    static let readCount = 256

    struct State {
        /// The partitions this node simulates, each with the entries it read and has not taken,
        /// as local offsets (`LoggedPushPosition`: what the simulator's runs say they took).
        var owned: [Int: Reading] = [:]
        /// Observations recorded and not yet written, by partition, and what they take.
        var unwritten: [Int: Unwritten] = [:]
        /// The next local offset of each partition ever simulated here. It never goes back (a
        /// partition lost and gained again, a new world): a push of an earlier reading that the
        /// pipeline delivers late takes nothing of the new one.
        var nextOffsets: [Int: Int64] = [:]

        mutating func nextOffset(of partition: Int) -> Int64 {
            defer { nextOffsets[partition, default: 1] += 1 }
            return nextOffsets[partition, default: 1]
        }
    }

    struct Reading {
        /// Each entry read and not yet taken, with the offset of its last push.
        var entries: [(offset: Int64, id: StreamID)] = []
        /// The pushes this node's phones took lately. A Redis master that fails over can lose
        /// a taking its replica had not received yet, and hand the push out again: it is then
        /// taken again, and not delivered twice.
        var delivered = RecentStreamIDs(capacity: 100_000)
    }

    struct Unwritten {
        var observations: [Observation] = []
        var taking: [StreamID] = []
    }

    /// The partitions' leases' duration: a taking renews a lease a failover lost.
    public let lease: Duration

    public init(
        node: String, log: EnginePushLog, pipeline: DeliveryPipeline, lease: Duration = .seconds(3), logger: Logger = Logger(label: "pushlab.cluster")
    ) {
        self.node = node
        self.lease = lease
        self.log = log
        self.pipeline = pipeline
        self.logger = logger
    }

    public var keys: EngineKeys { log.keys }

    /// The engine's client, for what waits on the partitions' logs (`PartitionDoorbells`).
    var engineClient: RedisClusterClient { log.client }

    /// Hears the history of the phones of a partition this node gains: it replaces what the
    /// history holds of the phones `devices` accepts (this node's copies may have observed what
    /// the engine never got).
    public typealias Adoption = @Sendable (_ history: [Observation], _ devices: @escaping @Sendable (String) -> Bool) -> Void

    /// Becomes one of the simulator's sinks (once); `adopt` hears the history of the phones of
    /// each partition it gains.
    func attach(adopting adopt: Adoption? = nil) {
        self.adopt.withLock { $0 = adopt.map(AdoptionHook.init) }
        sinkID.withLock { id in
            if id == nil { id = simulator.addSink(self) }
        }
    }

    /// No longer hears the simulator.
    func detach() {
        if let id = sinkID.withLock({ id in defer { id = nil }; return id }) { simulator.removeSink(id) }
    }

    /// The partitions simulated here now, in order.
    public var owned: [Int] { state.withLock { $0.owned.keys.sorted() } }

    /// Starts simulating `partition` (its lease is this node's): what another node read and did
    /// not take, and what this node read before a restart, comes first, as resumed pushes.
    /// Its phones are made first, as the last node wrote them.
    /// Several partitions at once make their phones in one pass over the scenario's.
    public func gain(_ partitions: [Int]) async throws {
        guard !partitions.isEmpty else { return }
        try await turns.withLock {
            try await log.prepare(partitions: partitions)
            let phones = try await restorePhones(of: partitions)
            logger.info("Made \(phones) phone(s) of partition(s) \(partitions.map(String.init).joined(separator: ", "))")
            for partition in partitions {
                let history = try await restoreHistory(of: partition)
                let abandoned = try await log.claimAbandoned(partition: partition, consumer: node, minIdle: .zero, count: 100_000)
                state.withLock { $0.owned[partition] = Reading() }
                deliver(abandoned, of: partition, resumed: true)
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
    /// phone as its last node wrote it (`EngineKeys.devices`), with its apps' states and its
    /// Notification Centers.
    private func restorePhones(of gained: [Int]) async throws -> Int {
        var saved: [SimulatedDevice] = []
        var removed: [String] = []
        let decoder = JSONDecoder()
        for partition in gained {
            let answer = try await log.client.send(RESPCommand("HGETALL", RESPArgument(keys.devices(partition))), slot: keys.slot(partition))
            for (id, value) in answer.pairs ?? [] {
                guard let id = id.text, let bytes = value.bytes else { continue }
                if bytes.isEmpty {
                    removed.append(id)
                } else if let device = try? decoder.decode(SimulatedDevice.self, from: Data(bytes)) {
                    saved.append(device)
                } else {
                    logger.error("Device \(id) of partition \(partition) cannot be read from the engine; the scenario's phone stands in for it")
                }
            }
        }
        let partitions = keys.partitions
        let wanted = Set(gained)
        return simulator.adopt(where: { wanted.contains(partitions.partition(of: $0)) }, saved: saved, removed: removed)
    }

    /// Whether this node simulates `deviceID`'s phone now.
    public func simulates(device deviceID: String) -> Bool {
        let partition = keys.partitions.partition(of: deviceID)
        return state.withLock { $0.owned[partition] != nil }
    }

    /// Goes to world `id`, a reset or a scenario load that every node applies (`WorldChanges`):
    /// what the phones observed so far is written to the old world, then the keys are the new
    /// world's and `applying` puts the phones back as the scenario has them, with no push read
    /// or delivered meanwhile. What was read of the old world and not taken stays there.
    public func startWorld(_ id: String, applying: @Sendable () async -> Void) async {
        await turns.withLock {
            pipeline.settle()
            _ = await write()
            keys.world.set(id)
            let partitions = state.withLock { state in
                for partition in state.owned.keys { state.owned[partition] = Reading() }
                state.unwritten.removeAll()
                return state.owned.keys.sorted()
            }
            await applying()
            do {
                try await log.prepare(partitions: partitions)
            } catch {
                // A read that finds no group makes it (`readAndDeliver`).
                logger.warning("Preparing the new world's logs failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Stops simulating `partition` at once (a round busy with the engine is not waited for: a
    /// lost lease must not hold the node's beats back): what was read and not taken stays in the
    /// engine for the next owner to claim, and its phones are let go. A round still delivering
    /// to them records nothing of them, and takes nothing (`record`), so the next owner delivers
    /// those pushes.
    public func lose(_ partition: Int) {
        state.withLock {
            $0.owned[partition] = nil
            $0.unwritten[partition] = nil
        }
        let partitions = keys.partitions
        let phones = simulator.release { partitions.partition(of: $0) == partition }
        logger.info("Gave partition \(partition) up, and its \(phones) phone(s)")
    }

    /// Reads each owned partition's new pushes, hands them to the pipeline, and writes what was
    /// observed with the takings so far. Returns how many entries it read; partitions whose
    /// lease was lost are dropped and returned.
    @discardableResult
    public func round() async -> (delivered: Int, lost: [Int]) {
        await turns.withLock {
            var delivered = 0
            for partition in owned { delivered += await readAndDeliver(partition) }
            return (delivered, await write())
        }
    }

    /// Claims, in each of `partitions` still simulated here, what another consumer read and has not taken
    /// for `minIdle`: a node that went on reading after it lost the partition unawares (its
    /// takings fail), or died between this node's gain and its own last read. Delivered as
    /// resumed pushes; what this node itself read and has yet to take is left alone.
    public func reclaim(_ partitions: [Int], idleFor minIdle: Duration) async {
        guard !partitions.isEmpty else { return }
        await turns.withLock {
            for partition in partitions where state.withLock({ $0.owned[partition] != nil }) {
                do {
                    let claimed = try await log.claimAbandoned(partition: partition, consumer: node, minIdle: minIdle, count: 10_000)
                    let own = state.withLock { Set($0.owned[partition]?.entries.map(\.id) ?? []) }
                    deliver(claimed.filter { !own.contains($0.id) }, of: partition, resumed: true)
                } catch {
                    logger.warning("Claiming partition \(partition)'s abandoned pushes failed", metadata: ["error": "\(error)"])
                }
            }
            _ = await write()
        }
    }

    /// Delivers every push accepted so far for `deviceID`'s phone, if this node simulates it: a
    /// read of the phone after this sees every push that was answered 200 before it (the next
    /// round writes what it observed; a read need not wait for the engine). False when another
    /// node simulates the phone.
    public func settle(device deviceID: String) async -> Bool {
        let partition = keys.partitions.partition(of: deviceID)
        guard state.withLock({ $0.owned[partition] != nil }) else { return false }
        await turns.withLock {
            while await readAndDeliver(partition) == Self.readCount {}
        }
        pipeline.settle()
        return true
    }

    /// Delivers every push accepted so far in every partition simulated here (the next round
    /// writes what the phones observed).
    public func settleAll() async {
        await turns.withLock {
            for partition in owned {
                while await readAndDeliver(partition) == Self.readCount {}
            }
        }
        pipeline.settle()
    }

    /// Pushes were read and not yet taken, or observations wait to be written: a round should
    /// come soon even if no push comes (the pipeline delivers after the round that read them).
    public var isTaking: Bool {
        state.withLock { state in
            state.owned.values.contains { !$0.entries.isEmpty } || state.unwritten.values.contains { !$0.taking.isEmpty || !$0.observations.isEmpty }
        }
    }

    /// One read of the partition's new pushes, delivered; how many there were.
    private func readAndDeliver(_ partition: Int) async -> Int {
        do {
            let entries = try await log.readNew(partition: partition, consumer: node, count: Self.readCount)
            deliver(entries, of: partition, resumed: false)
            return entries.count
        } catch where error.code == "NOGROUP" {
            // A new world's log that no push has made yet.
            try? await log.prepare(partitions: [partition])
            return 0
        } catch {
            logger.warning("Reading partition \(partition) failed; tried again next round", metadata: ["error": "\(error)"])
            return 0
        }
    }

    private func deliver(_ entries: [EnginePushLog.Entry], of partition: Int, resumed: Bool) {
        guard !entries.isEmpty else { return }
        guard entries.contains(where: { $0.broadcast != nil }) else { return deliverPushes(entries, of: partition, resumed: resumed) }
        // Broadcasts split the entries into runs of pushes, each delivered in its turn.
        var run: [EnginePushLog.Entry] = []
        for entry in entries {
            guard let broadcast = entry.broadcast else {
                run.append(entry)
                continue
            }
            deliverPushes(run, of: partition, resumed: resumed)
            run.removeAll()
            deliver(broadcast: broadcast, id: entry.id, of: partition)
        }
        deliverPushes(run, of: partition, resumed: resumed)
    }

    /// A broadcast to the partition's subscribed phones, taken with what they observed once the
    /// pipeline ran it.
    private func deliver(broadcast bytes: [UInt8], id: StreamID, of partition: Int) {
        let broadcast = BroadcastJSON.decode(bytes)
        let position = state.withLock { state -> LoggedPushPosition? in
            guard var reading = state.owned[partition] else { return nil }
            defer { state.owned[partition] = reading }
            guard !reading.delivered.contains(id), broadcast != nil else {
                state.unwritten[partition, default: Unwritten()].taking.append(id)
                return nil
            }
            reading.delivered.insert(id)
            let offset = state.nextOffset(of: partition)
            reading.entries.append((offset, id))
            return LoggedPushPosition(partition: partition, offset: offset)
        }
        guard let broadcast else {
            return logger.error("A broadcast in partition \(partition)'s log cannot be read; taken without delivery", metadata: ["id": "\(id)"])
        }
        guard let position else { return }
        let partitions = keys.partitions
        pipeline.accept(LoggedBroadcast(broadcast, devices: { partitions.partition(of: $0) == partition }, position: position))
    }

    private func deliverPushes(_ entries: [EnginePushLog.Entry], of partition: Int, resumed: Bool) {
        guard !entries.isEmpty else { return }
        var pushes: [LoggedPush] = []
        pushes.reserveCapacity(entries.count)
        state.withLock { state in
            guard var reading = state.owned[partition] else { return }
            for entry in entries {
                guard !reading.delivered.contains(entry.id) else {
                    state.unwritten[partition, default: Unwritten()].taking.append(entry.id)
                    continue
                }
                let decoded = entry.pushes.compactMap { try? AcceptedPushEncoding.decode($0).first }
                if decoded.count < entry.pushes.count || entry.pushes.isEmpty {
                    // Unreadable (another version's entry): what cannot be read is taken with no
                    // phone, said in the log.
                    logger.error(
                        "A log entry of partition \(partition) cannot be read whole; \(max(1, entry.pushes.count - decoded.count)) push(es) taken without delivery",
                        metadata: ["id": "\(entry.id)"]
                    )
                }
                reading.delivered.insert(entry.id)
                guard !decoded.isEmpty else {
                    state.unwritten[partition, default: Unwritten()].taking.append(entry.id)
                    continue
                }
                // The entry is taken once its last push is.
                var last: Int64 = 0
                for push in decoded {
                    last = state.nextOffset(of: partition)
                    pushes.append(LoggedPush(position: LoggedPushPosition(partition: partition, offset: last), push: push))
                }
                reading.entries.append((last, entry.id))
            }
            state.owned[partition] = reading
        }
        pipeline.deliver(logged: pushes, resumed: resumed)
    }

    public func record(_ observations: [Observation]) {
        record(batches: [observations], taking: [])
    }

    public func record(batches: [[Observation]]) {
        record(batches: batches, taking: [])
    }

    public func record(batches: [[Observation]], taking: [LoggedPushPosition]) {
        let partitions = keys.partitions
        state.withLock { state in
            for batch in batches {
                for observation in batch {
                    let partition = partitions.partition(of: observation.deviceID)
                    // A phone another node simulates is not this node's to record.
                    guard state.owned[partition] != nil else { continue }
                    state.unwritten[partition, default: Unwritten()].observations.append(observation)
                }
            }
            for position in taking {
                guard var reading = state.owned[position.partition] else { continue }
                let taken = reading.entries.prefix { $0.offset <= position.offset }
                reading.entries.removeFirst(taken.count)
                state.owned[position.partition] = reading
                state.unwritten[position.partition, default: Unwritten()].taking += taken.map(\.id)
            }
        }
    }

    /// Writes every partition's observations and takings; returns the partitions found lost.
    @discardableResult
    public func flush() async -> [Int] {
        await turns.withLock {
            pipeline.settle()
            return await write()
        }
    }

    private func write() async -> [Int] {
        let changes = simulator.takeChanges()
        let unwritten = state.withLock { state in
            defer { state.unwritten.removeAll() }
            return state.unwritten
        }
        var writes: [Int: [EngineWrite]] = [:]
        for (partition, writing) in unwritten where !writing.observations.isEmpty {
            writes[partition, default: []].append(
                .append(stream: keys.observations(partition), fields: [("batch", Self.encode(writing.observations))], keep: Self.keptBatches)
            )
        }
        let owned = Set(self.owned)
        var phones: [Int: [(String, [UInt8])]] = [:]
        for device in changes.changed {
            let partition = keys.partitions.partition(of: device.id)
            guard owned.contains(partition), let snapshot = try? DeviceSnapshot.encode(device) else { continue }
            phones[partition, default: []].append((device.id, snapshot))
        }
        for id in changes.removed {
            let partition = keys.partitions.partition(of: id)
            guard owned.contains(partition) else { continue }
            phones[partition, default: []].append((id, []))
        }
        // One HSET a partition: a replica hears each command of the script (MULTI … EXEC).
        for (partition, fields) in phones {
            writes[partition, default: []].append(.setFields(hash: keys.devices(partition), fields: fields))
        }
        var lost: [Int] = []
        var failed: [Int: Unwritten] = [:]
        // All at once: a master that fails over (or, durable, has no replica to WAIT for) costs
        // one timeout a write, not one for each of its partitions in turn.
        let outcomes = await withTaskGroup(of: (Int, Result<Bool, any Error>).self) { group in
            for partition in Set(unwritten.keys).union(writes.keys).sorted() {
                let taking = unwritten[partition]?.taking ?? []
                let partitionWrites = writes[partition] ?? []
                group.addTask { [log, node, lease] in
                    do {
                        return (partition, .success(try await log.take(partition: partition, ids: taking, by: node, lease: lease, writes: partitionWrites)))
                    } catch {
                        return (partition, .failure(error))
                    }
                }
            }
            var outcomes: [(Int, Result<Bool, any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }
        }
        for (partition, outcome) in outcomes {
            switch outcome {
            case .success(true):
                break
            case .success(false):
                logger.notice("Partition \(partition) is another node's now: its phones are simulated there")
                lose(partition)
                lost.append(partition)
            case .failure(let error):
                // Kept for the next write (a master failing over): the takings and what the
                // phones observed; the phones' state is written again with their next change.
                logger.warning("Writing partition \(partition) failed; written again next round", metadata: ["error": "\(error)"])
                failed[partition] = unwritten[partition] ?? Unwritten()
            }
        }
        if !failed.isEmpty {
            state.withLock { state in
                for (partition, writing) in failed where state.owned[partition] != nil {
                    var merged = writing
                    if let newer = state.unwritten[partition] {
                        merged.observations += newer.observations
                        merged.taking += newer.taking
                    }
                    state.unwritten[partition] = merged
                }
            }
        }
        return lost
    }

    /// A batch of observations in the store's chunk format (`ObservationBlob`): a tenth of
    /// their JSON in bytes, and written without building it.
    static func encode(_ observations: [Observation]) -> [UInt8] {
        ObservationBlob.encode(observations)
    }

    /// The observations of one stream entry: a chunk, or a JSON array (`Observation.json`) as
    /// nodes of an earlier version wrote them.
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
