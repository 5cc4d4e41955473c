import Logging
import PushlabCore
import PushlabSimulator
import Synchronization

/// The deliverer of a shared log's partitions (`PartitionedPushLog`): it reads each partition it
/// holds in order, hands the pushes to its phones through the delivery pipeline a single process
/// uses (`DeliveryPipeline.deliver(logged:resumed:)`), and takes them with what the phones
/// observed and the phones as they are now, all in one step of the log. So a push is taken
/// once, by the reader whose phones took it, and the log never has a taking without its
/// observations.
///
/// It is one of the simulator's sinks: every observation of a phone of a partition it holds (a
/// push's, a tap's, a timer's) is written with the partition's next taking.
public final class PartitionReader<Log: PartitionedPushLog>: ObservationSink {
    public let log: Log
    public let pipeline: DeliveryPipeline
    public var simulator: DeviceSimulator { pipeline.simulator }
    public let partitions: DevicePartitions
    private let logger: Logger
    private let state = Mutex(State())
    private let lostHandler = Mutex<LostHandler?>(nil)
    /// Reading, delivering and writing go one at a time (two readers of one partition would
    /// deliver its pushes out of order); `withTurn` lets a caller's own steps join them.
    private let turns = AsyncLock()
    /// How many entries a partition's read takes at most.
    public static var readCount: Int { 256 }

    struct State {
        /// The partitions held, each with the entries read and not taken, as local offsets
        /// (`LoggedPushPosition`: what the simulator's runs say they took).
        var held: [Int: Reading] = [:]
        /// Observations recorded and not yet written, by partition, and what they take.
        var unwritten: [Int: Unwritten] = [:]
        /// The next local offset of each partition ever held. It never goes back (a partition
        /// lost and held again, a new world): a push of an earlier reading that the pipeline
        /// delivers late takes nothing of the new one.
        var nextOffsets: [Int: Int64] = [:]

        mutating func nextOffset(of partition: Int) -> Int64 {
            defer { nextOffsets[partition, default: 1] += 1 }
            return nextOffsets[partition, default: 1]
        }
    }

    struct Reading {
        /// Each entry read and not yet taken, with the offset of its last push.
        var entries: [(offset: Int64, id: Log.EntryID)] = []
        /// The entries this reader's phones took lately. A log that loses a taking (a Redis
        /// master's failover) hands the entry out again: it is then taken again, not delivered
        /// twice.
        var delivered = RecentIDs<Log.EntryID>(capacity: 100_000)
    }

    struct Unwritten {
        var observations: [Observation] = []
        var taking: [Log.EntryID] = []
        /// Phones a failed write did not write: the simulator hands a change out once.
        var phones: [PhoneChange] = []

        /// `newer` after this: the observations and takings in order, a phone as it is last.
        mutating func add(_ newer: Unwritten) {
            observations += newer.observations
            taking += newer.taking
            phones = Self.merged(phones, newer.phones)
        }

        /// `older` with each phone `newer` has in its place.
        static func merged(_ older: [PhoneChange], _ newer: [PhoneChange]) -> [PhoneChange] {
            guard !older.isEmpty else { return newer }
            let replaced = Set(newer.map(\.deviceID))
            return older.filter { !replaced.contains($0.deviceID) } + newer
        }
    }

    public init(log: Log, pipeline: DeliveryPipeline, partitions: DevicePartitions, logger: Logger = Logger(label: "pushlab.partitions")) {
        self.log = log
        self.pipeline = pipeline
        self.partitions = partitions
        self.logger = logger
    }

    /// Called with each partition a write found to be another reader's, once it was dropped.
    public func onLost(_ handler: @escaping @Sendable (Int) -> Void) {
        lostHandler.withLock { $0 = LostHandler(handler) }
    }

    /// The partitions held now, in order.
    public var held: [Int] { state.withLock { $0.held.keys.sorted() } }

    /// Whether `partition` is held.
    public func holds(_ partition: Int) -> Bool { state.withLock { $0.held[partition] != nil } }

    /// `body` in a turn of its own: nothing is read, delivered or written meanwhile.
    public func withTurn<Result: Sendable>(_ body: () async throws -> Result) async rethrows -> Result {
        try await turns.withLock(body)
    }

    /// Holds `partition` from now on; `entries` (what another reader left, from `claimAbandoned`)
    /// are delivered first, as resumed pushes. Call it within a turn.
    public func hold(_ partition: Int, resuming entries: [PartitionEntry<Log.EntryID>]) {
        state.withLock { $0.held[partition] = Reading() }
        deliver(entries, of: partition, resumed: true)
    }

    /// Lets `partition` go at once (a round busy with the log is not waited for): what was read
    /// and not taken stays in the log for the next reader. A push of it the pipeline still
    /// delivers records nothing and takes nothing (`record`).
    public func drop(_ partition: Int) {
        state.withLock {
            $0.held[partition] = nil
            $0.unwritten[partition] = nil
        }
    }

    /// Every partition starts reading afresh (a new world, whose logs are other keys), after
    /// what the pipeline holds was delivered and written. Call it within a turn.
    public func startAfresh() async -> [Int] {
        pipeline.settle()
        _ = await write()
        return state.withLock { state in
            for partition in state.held.keys { state.held[partition] = Reading() }
            state.unwritten.removeAll()
            return state.held.keys.sorted()
        }
    }

    /// Reads each held partition's new entries, hands them to the pipeline, and writes what was
    /// observed with the takings so far. Returns how many entries it read; partitions found to be
    /// another reader's are dropped and returned.
    @discardableResult
    public func round() async -> (read: Int, lost: [Int]) {
        await turns.withLock {
            var read = 0
            for partition in held { read += await readAndDeliver(partition) }
            return (read, await write())
        }
    }

    /// Entries read and not yet taken, or observations waiting to be written: a round should
    /// come soon even if no push comes (the pipeline delivers after the round that read them).
    public var isTaking: Bool {
        state.withLock { state in
            state.held.values.contains { !$0.entries.isEmpty } || state.unwritten.values.contains { !$0.taking.isEmpty || !$0.observations.isEmpty }
        }
    }

    /// Claims, in each of `partitions` still held, what another reader read and has not taken
    /// for `minIdle`, and delivers it as resumed pushes; what this reader read itself is left.
    public func reclaim(_ partitions: [Int], idleFor minIdle: Duration) async {
        guard !partitions.isEmpty else { return }
        await turns.withLock {
            for partition in partitions where holds(partition) {
                do {
                    let claimed = try await log.claimAbandoned(partition: partition, minIdle: minIdle, count: 10_000)
                    let own = state.withLock { Set($0.held[partition]?.entries.map(\.id) ?? []) }
                    deliver(claimed.filter { !own.contains($0.id) }, of: partition, resumed: true)
                } catch {
                    logger.warning("Claiming partition \(partition)'s abandoned pushes failed", metadata: ["error": "\(error)"])
                }
            }
            _ = await write()
        }
    }

    /// Delivers every push of `partition` accepted so far, if it is held: a read of its phones
    /// after this sees every push answered before it. False when it is not held.
    public func settle(_ partition: Int) async -> Bool {
        guard holds(partition) else { return false }
        await turns.withLock {
            while await readAndDeliver(partition) == Self.readCount {}
        }
        pipeline.settle()
        return true
    }

    /// Delivers every push accepted so far in every partition held.
    public func settleAll() async {
        await turns.withLock {
            for partition in held {
                while await readAndDeliver(partition) == Self.readCount {}
            }
        }
        pipeline.settle()
    }

    /// Writes every partition's observations and takings, after what the pipeline holds was
    /// delivered; returns the partitions found to be another reader's.
    @discardableResult
    public func flush() async -> [Int] {
        await turns.withLock {
            pipeline.settle()
            return await write()
        }
    }

    // MARK: Reading

    private func readAndDeliver(_ partition: Int) async -> Int {
        do {
            let entries = try await log.readNew(partition: partition, count: Self.readCount)
            deliver(entries, of: partition, resumed: false)
            return entries.count
        } catch {
            logger.warning("Reading partition \(partition) failed; tried again next round", metadata: ["error": "\(error)"])
            return 0
        }
    }

    private func deliver(_ entries: [PartitionEntry<Log.EntryID>], of partition: Int, resumed: Bool) {
        guard !entries.isEmpty else { return }
        // Broadcasts split the entries into runs of pushes, each handed over in its turn.
        var run: [PartitionEntry<Log.EntryID>] = []
        for entry in entries {
            guard case .broadcast(let broadcast) = entry.content else {
                run.append(entry)
                continue
            }
            deliverPushes(run, of: partition, resumed: resumed)
            run.removeAll()
            deliver(broadcast, id: entry.id, of: partition)
        }
        deliverPushes(run, of: partition, resumed: resumed)
    }

    /// A broadcast to the partition's subscribed phones, taken with what they observed once the
    /// pipeline ran it.
    private func deliver(_ broadcast: AcceptedBroadcast, id: Log.EntryID, of partition: Int) {
        let position = state.withLock { state -> LoggedPushPosition? in
            guard var reading = state.held[partition] else { return nil }
            defer { state.held[partition] = reading }
            guard !reading.delivered.contains(id) else {
                state.unwritten[partition, default: Unwritten()].taking.append(id)
                return nil
            }
            reading.delivered.insert(id)
            let offset = state.nextOffset(of: partition)
            reading.entries.append((offset, id))
            return LoggedPushPosition(partition: partition, offset: offset)
        }
        guard let position else { return }
        let partitions = partitions
        pipeline.accept(LoggedBroadcast(broadcast, devices: { partitions.partition(of: $0) == partition }, position: position))
    }

    private func deliverPushes(_ entries: [PartitionEntry<Log.EntryID>], of partition: Int, resumed: Bool) {
        guard !entries.isEmpty else { return }
        var pushes: [LoggedPush] = []
        pushes.reserveCapacity(entries.count)
        state.withLock { state in
            guard var reading = state.held[partition] else { return }
            for entry in entries {
                guard !reading.delivered.contains(entry.id) else {
                    state.unwritten[partition, default: Unwritten()].taking.append(entry.id)
                    continue
                }
                reading.delivered.insert(entry.id)
                guard case .pushes(let decoded) = entry.content, !decoded.isEmpty else {
                    if case .unreadable(let count) = entry.content {
                        logger.error(
                            "A log entry of partition \(partition) cannot be read; \(max(1, count)) push(es) taken without delivery",
                            metadata: ["id": "\(entry.id)"]
                        )
                    }
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
            state.held[partition] = reading
        }
        pipeline.deliver(logged: pushes, resumed: resumed)
    }

    // MARK: ObservationSink

    public func record(_ observations: [Observation]) {
        record(batches: [observations], taking: [])
    }

    public func record(batches: [[Observation]]) {
        record(batches: batches, taking: [])
    }

    public func record(batches: [[Observation]], taking: [LoggedPushPosition]) {
        let partitions = partitions
        state.withLock { state in
            for batch in batches {
                for observation in batch {
                    let partition = partitions.partition(of: observation.deviceID)
                    // A phone of a partition not held is not this reader's to record.
                    guard state.held[partition] != nil else { continue }
                    state.unwritten[partition, default: Unwritten()].observations.append(observation)
                }
            }
            for position in taking {
                guard var reading = state.held[position.partition] else { continue }
                let taken = reading.entries.prefix { $0.offset <= position.offset }
                reading.entries.removeFirst(taken.count)
                state.held[position.partition] = reading
                state.unwritten[position.partition, default: Unwritten()].taking += taken.map(\.id)
            }
        }
    }

    // MARK: Writing

    /// Each partition's observations, phones and takings in one step of the log, all partitions
    /// at once (a failing part of the log costs one timeout a write, not one a partition); what
    /// fails is kept for the next write. Returns the partitions found to be another reader's.
    private func write() async -> [Int] {
        let changes = simulator.takeChanges()
        let unwritten = state.withLock { state in
            defer { state.unwritten.removeAll() }
            return state.unwritten
        }
        var phones: [Int: [PhoneChange]] = [:]
        for device in changes.changed {
            let partition = partitions.partition(of: device.id)
            if holds(partition) { phones[partition, default: []].append(.changed(device)) }
        }
        for id in changes.removed {
            let partition = partitions.partition(of: id)
            if holds(partition) { phones[partition, default: []].append(.removed(id: id)) }
        }
        for (partition, writing) in unwritten where !writing.phones.isEmpty {
            phones[partition] = Unwritten.merged(writing.phones, phones[partition] ?? [])
        }
        let written = Set(unwritten.keys).union(phones.keys).sorted()
        guard !written.isEmpty else { return [] }
        let outcomes = await withTaskGroup(of: (Int, Result<Bool, any Error>).self) { group in
            for partition in written {
                let writing = unwritten[partition] ?? Unwritten()
                let changed = phones[partition] ?? []
                group.addTask { [log] in
                    do {
                        return (partition, .success(try await log.take(
                            partition: partition, ids: writing.taking, observations: writing.observations, phones: changed
                        )))
                    } catch {
                        return (partition, .failure(error))
                    }
                }
            }
            var outcomes: [(Int, Result<Bool, any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }
        }
        var lost: [Int] = []
        var failed: [Int: Unwritten] = [:]
        for (partition, outcome) in outcomes {
            switch outcome {
            case .success(true):
                break
            case .success(false):
                logger.notice("Partition \(partition) is another node's now: its phones are simulated there")
                drop(partition)
                lostHandler.withLock { $0 }?.handle(partition)
                lost.append(partition)
            case .failure(let error):
                // Kept for the next write (a part of the log failing over): the takings, what the
                // phones observed and the phones.
                logger.warning("Writing partition \(partition) failed; written again next round", metadata: ["error": "\(error)"])
                var kept = unwritten[partition] ?? Unwritten()
                kept.phones = phones[partition] ?? []
                failed[partition] = kept
            }
        }
        if !failed.isEmpty {
            state.withLock { state in
                for (partition, writing) in failed where state.held[partition] != nil {
                    var merged = writing
                    if let newer = state.unwritten[partition] { merged.add(newer) }
                    state.unwritten[partition] = merged
                }
            }
        }
        return lost
    }
}

/// The handler of lost partitions behind a reference: a `Mutex` holding the closure itself would
/// wrap it in another reabstraction thunk at every access.
final class LostHandler: Sendable {
    let handle: @Sendable (Int) -> Void

    init(_ handle: @escaping @Sendable (Int) -> Void) {
        self.handle = handle
    }
}
