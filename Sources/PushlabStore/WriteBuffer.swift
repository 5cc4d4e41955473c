import PushlabCore
import PushlabDelivery
import PushlabSimulator
import Synchronization

/// Everything the recording threads and the writer thread share, behind one lock held only
/// to append or swap arrays: recording on an event loop never waits for SQLite.
///
/// Each take has every request recorded so far, so a request is committed within the
/// schedule's window; observations (and device states) wait while the server is busy, and are
/// otherwise taken as much as fits the commit budget, so that no commit outlasts it.
final class WriteBuffer: Sendable {
    typealias Waiter = CheckedContinuation<Result<Void, StoreError>, Never>
    typealias CommitWaiter = @Sendable (CommitTicket, _ committed: Bool) -> Void

    /// What the writer took in one go, and who waits for it to be committed.
    struct Batch: Sendable {
        var writes: PendingWrites
        var waiters: [Waiter]
        /// `close()` was called: the writer stops after this batch.
        var isLast: Bool
        /// Nothing was recorded since the writer's previous look.
        var isQuiet = false
        /// Waits for a commit with this ticket or a lower one are answered by this batch.
        var ticket = CommitTicket.refused
        /// The server is busy: only the requests were taken, observations wait.
        var isHeld = false
        /// Every observation waiting was taken (the writer has caught up): removed devices may
        /// join too. A removal takes the device's Notification Center entries (a record of the
        /// log that drops those before it), so it goes after the observations that add them.
        var tookEveryObservation = false
        /// Saved snapshots hold no entries and join any batch the server is not holding: under a
        /// long load observations always wait, and holding the snapshots back for them left
        /// every phone's to the end of the load.
        var maySaveDevices: Bool { !isHeld }
        /// How many device states may join; nil: all.
        var deviceLimit: Int?
        /// Device states an earlier batch had no room for are waiting.
        var devicesWaiting = false
        /// The previous take: every request in this batch was recorded since.
        var openedAt: ContinuousClock.Instant?
        /// This take: its commit's duration counts from here.
        var takenAt: ContinuousClock.Instant?
    }

    private struct State {
        var pending = PendingWrites()
        /// TakenBatch by the writer, not yet committed: queries still see it here.
        var inFlight = PendingWrites()
        var waiters: [Waiter] = []
        /// `afterCommit` calls, oldest first, each with the take that will answer it.
        var commitWaiters: [(ticket: CommitTicket, done: CommitWaiter)] = []
        var isClosing = false
        var isClosed = false
        var statistics = StoreStatistics()
        /// Items recorded since the start, and at the writer's last look.
        var recorded = 0
        var recordedAtLastLook = 0
        /// When the writer holds off (nil: never).
        var hold: BusyHold?
        var schedule: CommitSchedule
        var costs = WriteCosts()
        /// Batches taken so far: the next one is `takes + 1`.
        var takes: UInt64 = 0
        /// When the last batch was taken.
        var lastTakeAt: ContinuousClock.Instant?
        /// The last batch was cut to the budget: the writer goes on at once.
        var leftOver = false
        /// The writer sleeps until its next take unless woken.
        var writerSleeps = false
        /// The writer sleeps longer than the window allows a request to wait: the first one
        /// recorded wakes it.
        var requestWakesWriter = false
        /// At least `holdMark` observations and requests wait: told to `onBackedUp`.
        var isBackedUp = false
        var onBackedUp: (@Sendable (Bool) -> Void)?
        /// The last offset the log of accepted pushes gave in each partition.
        var lastPushOffsets: [Int: Int64] = [:]

        var backlog: Int { pending.count + inFlight.count }
    }

    private let state: Mutex<State>
    let largeBatchSize: Int
    let backlogLimit: Int
    let retention: HistoryRetention?
    /// With this many observations and requests waiting, the writer stops holding off, and
    /// whoever makes them is asked to wait (`onBackedUp`): half the backlog limit, or of the
    /// history limit, well short of where items would be dropped or shed. At least 65,536: under a
    /// history limit below about 60,000 (shed past 1.1 times the limit), shedding what the limit
    /// would delete anyway costs less than slowing the phones.
    let holdMark: Int

    /// `hold`: while the server is busy, the writer holds the observations off and the CPU goes
    /// to answering; the store catches up in the pauses, or when `holdMark` items wait, a
    /// flush asks, or the hold has lasted long enough. Nil: every look takes what fits.
    ///
    /// `schedule`: how often the writer looks, and the window within which every request is
    /// committed.
    ///
    /// `retention`: what waits past the history limit is shed, oldest first, instead of written
    /// and then deleted, so the backlog limit never applies: a load the disk cannot keep up with
    /// loses nothing the history limit would keep, and memory stays bounded by the limit.
    init(
        largeBatchSize: Int, backlogLimit: Int, hold: BusyHold? = nil, schedule: CommitSchedule = CommitSchedule(),
        retention: HistoryRetention? = nil
    ) {
        self.largeBatchSize = max(1, largeBatchSize)
        self.backlogLimit = max(1, backlogLimit)
        self.retention = retention
        let limit = min(self.backlogLimit, retention?.limit ?? .max)
        holdMark = retention == nil ? max(1, limit / 2) : max(Self.smallestHoldMark, limit / 2)
        state = Mutex(State(hold: hold, schedule: schedule))
    }

    static let smallestHoldMark = 65_536

    /// Calls `tell` with true when `holdMark` items wait and with false once they no longer do,
    /// under the buffer's lock (so in order): it must only set a flag. Nil stops telling; the
    /// one it replaces is told false, so that nothing stays held by a store no longer listening.
    func onBackedUp(_ tell: (@Sendable (Bool) -> Void)?) {
        state.withLock { state in
            state.onBackedUp?(false)
            state.onBackedUp = tell
            tell?(state.isBackedUp)
        }
    }

    private func checkBackedUp(_ state: inout State) {
        let backedUp = state.pending.observationCount + state.pending.requestCount >= holdMark
        guard backedUp != state.isBackedUp else { return }
        state.isBackedUp = backedUp
        state.onBackedUp?(backedUp)
    }

    // MARK: Recording (any thread)

    func append(_ observations: [Observation]) { append(batches: [observations]) }

    /// Several devices' observations under one lock, each array kept as it was handed over.
    func append(batches: [[Observation]]) {
        _ = record(batches, wakes: false) { $0.append(batches: $1) }
    }

    /// Observations of a run of queued pushes and the positions of the log its pushes reached:
    /// committed together, whatever the batch's size or the history limit.
    func append(batches: [[Observation]], taking: [LoggedPushPosition]) {
        _ = record(batches, wakes: false) { $0.append(batches: $1, taking: taking) }
    }

    /// Logs accepted pushes, numbering them on in their partitions: they are committed with the
    /// requests, within the crash window (a push is always recorded with its request).
    func appendLogged(_ pushes: [AcceptedPush], partitions: DevicePartitions) -> LoggedPositions {
        // Out of the lock: the event loops and the writer share it.
        let oneRun = partitions.numbersAsOneRun(pushes)
        return state.withLock { state in
            let positions = partitions.number(pushes, oneRun: oneRun, after: &state.lastPushOffsets)
            state.pending.append(pushes: pushes, at: positions)
            return positions
        }
    }

    /// Numbering goes on after what the file holds (at open).
    func resumeLogOffsets(after last: [Int: Int64]) {
        state.withLock { $0.lastPushOffsets = last }
    }

    /// A position taken with no observations to wait for (`AcceptedPushLog.markTaken`).
    /// Past the last push logged, only what was logged is taken.
    func appendTaking(_ position: LoggedPushPosition) {
        state.withLock { state in
            var position = position
            position.offset = min(position.offset, state.lastPushOffsets[position.partition, default: 0])
            guard position.offset > 0 else { return }
            state.pending.append(batches: [], taking: [position])
        }
    }

    /// Pushes logged and not committed, and every position taken and not committed.
    var unwrittenLog: (pushes: [LoggedPush], taken: [LoggedPushPosition]) {
        state.withLock { state in
            var pushes: [LoggedPush] = []
            for writes in [state.inFlight, state.pending] {
                for chunk in writes.pushChunks {
                    for index in chunk.positions.indices {
                        if let position = chunk.positions[index] { pushes.append(LoggedPush(position: position, push: chunk.pushes[index])) }
                    }
                }
            }
            return (pushes, state.inFlight.allTakings + state.pending.allTakings)
        }
    }

    /// A batch of requests as the log published it (numbered on from the store's last one).
    /// True when the writer must be woken for them to be committed within the window.
    @discardableResult
    func append(_ requests: [RequestLog.Entry]) -> Bool { record([requests], wakes: true) { $0.append(batches: $1) } }

    private func record<Item>(_ batches: [[Item]], wakes: Bool, appending append: (inout PendingWrites, [[Item]]) -> Void) -> Bool {
        let count = batches.reduce(0) { $0 + $1.count }
        // What is shed comes back out of the lock and is freed here, after it.
        let (wake, _) = state.withLock { state -> (Bool, ShedRecords) in
            guard !state.isClosing else { return (false, ShedRecords()) }
            state.recorded += count
            let wake = wakes && state.requestWakesWriter
            if wake { state.requestWakesWriter = false }
            defer { checkBackedUp(&state) }
            guard retention == nil else {
                append(&state.pending, batches)
                return (wake, shedPastTheHistoryLimit(&state))
            }
            let room = max(0, backlogLimit - state.backlog)
            if count <= room {
                append(&state.pending, batches)
            } else {
                if room > 0 { append(&state.pending, [Array(batches.joined().prefix(room))]) }
                state.statistics.droppedItems += count - room
            }
            return (wake, ShedRecords())
        }
        return wake
    }

    /// Sheds the oldest waiting observations and requests once either kind passes the history
    /// limit and its slack, counted as trimmed: the store would delete them once newer ones are
    /// written. What is being written is left alone.
    private func shedPastTheHistoryLimit(_ state: inout State) -> ShedRecords {
        var shed = ShedRecords()
        guard let retention else { return shed }
        if retention.isExceeded(by: state.pending.observationCount) {
            let taken = state.pending.shedObservations(keeping: retention.limit)
            state.statistics.trimmedObservations += taken.count
            state.statistics.shedItems += taken.count
            shed.observations = taken.chunks
        }
        if retention.isExceeded(by: state.pending.requestCount) {
            let taken = state.pending.shedRequests(keeping: retention.limit)
            state.statistics.trimmedRequests += taken.count
            state.statistics.shedItems += taken.count
            shed.requests = taken.chunks
        }
        return shed
    }

    /// What was shed under the lock, returned out of it to be freed after it: freeing a hundred
    /// thousand observations must not hold up every recording thread.
    private struct ShedRecords {
        var observations: [[Observation]] = []
        var requests: [[RequestLog.Entry]] = []
    }

    var backlog: Int { state.withLock { $0.backlog } }

    var statistics: StoreStatistics { state.withLock { $0.statistics } }

    /// Recorded but not yet committed, oldest first. Copied while locked, by the reader: handing
    /// out the arrays themselves would make the next `append` on an event loop copy them.
    var unwritten: (observations: [Observation], requests: [RequestLog.Entry]) {
        state.withLock { state in
            (Array(state.inFlight.observations) + Array(state.pending.observations), Array(state.inFlight.requests) + Array(state.pending.requests))
        }
    }

    // MARK: Flushing and closing

    /// Queues `waiter` for the next commit; false (and answered at once) when the store is closed.
    func addFlushWaiter(_ waiter: Waiter) -> Bool {
        let accepted = state.withLock { state in
            guard !state.isClosed else { return false }
            state.waiters.append(waiter)
            return true
        }
        if !accepted { waiter.resume(returning: .failure(StoreError(.closed, "The store is closed"))) }
        return accepted
    }

    /// Stops recording and queues `waiter` for the final commit; false (and answered at once)
    /// when the store is already closed.
    func close(_ waiter: Waiter) -> Bool {
        let accepted = state.withLock { state in
            guard !state.isClosed else { return false }
            state.isClosing = true
            state.waiters.append(waiter)
            return true
        }
        if !accepted { waiter.resume(returning: .success(())) }
        return accepted
    }

    // MARK: Waiting for a commit (any thread)

    /// Calls `done` once every request recorded so far is committed (group commit: the next
    /// batch, which takes every request, answers every wait that came before it); the writer is
    /// woken if it sleeps. When closing, `done` is called at once with `.refused`, not committed.
    func afterCommit(_ done: @escaping CommitWaiter) -> (ticket: CommitTicket, wakeWriter: Bool) {
        let answer = state.withLock { state -> (CommitTicket, Bool)? in
            guard !state.isClosing else { return nil }
            let ticket = CommitTicket(state.takes + 1)
            state.commitWaiters.append((ticket, done))
            defer { state.writerSleeps = false }
            return (ticket, state.writerSleeps)
        }
        guard let answer else {
            done(.refused, false)
            return (.refused, false)
        }
        return answer
    }

    // MARK: The writer's side

    /// The next batch: every request, and the observations that fit the budget unless the
    /// server is busy (a flush or close takes everything).
    func takeBatch(now: ContinuousClock.Instant = .now) -> Batch {
        state.withLock { state in
            let intake = state.recorded - state.recordedAtLastLook
            state.recordedAtLastLook = state.recorded
            // Kept up to date by every change to what waits (`checkBackedUp`).
            let filling = state.isBackedUp
            let flushing = !state.waiters.isEmpty || state.isClosing
            let held = !flushing && state.hold?.shouldWait(arrived: Int64(state.recorded), filling: filling, now: now) == true
            state.writerSleeps = false
            state.requestWakesWriter = false
            state.schedule.took(at: now)
            state.takes += 1
            let openedAt = state.lastTakeAt
            state.lastTakeAt = now

            let budget = state.schedule.commitBudget
            let requestSeconds = state.costs.requestsOnly(state.pending.requestCount)
            let observationLimit: Int? = flushing ? nil : held ? 0
                : WriteCosts.fitting(budget, spent: requestSeconds, perItem: state.costs.perObservation, minimum: 1)
            let writes = state.pending.takeBatch(observationLimit: observationLimit)
            checkBackedUp(&state)
            let observationsLeft = state.pending.observationCount > 0
            let spent = requestSeconds + Double(writes.observationCount) * state.costs.perObservation
            state.leftOver = !held && observationsLeft
            state.inFlight = writes
            let waiters = state.waiters
            state.waiters = []
            return Batch(
                writes: writes, waiters: waiters, isLast: state.isClosing, isQuiet: intake == 0, ticket: CommitTicket(state.takes),
                isHeld: held, tookEveryObservation: !held && !observationsLeft,
                deviceLimit: flushing ? nil : Self.deviceLimit(budget: budget, spent: spent, costs: state.costs, observationsLeft: observationsLeft),
                devicesWaiting: !state.pending.devices.isEmpty, openedAt: openedAt, takenAt: now
            )
        }
    }

    /// How many device states join a batch. While observations wait, the observations took the
    /// whole budget: the devices get a share of it on top, so a pass over every phone is spread
    /// over the load rather than left to its end.
    static func deviceLimit(budget: Duration, spent: Double, costs: WriteCosts, observationsLeft: Bool) -> Int {
        guard observationsLeft else { return WriteCosts.fitting(budget, spent: spent, perItem: costs.perDevice, minimum: 64) }
        return WriteCosts.fitting(budget * devicesShareWhileObservationsWait, spent: 0, perItem: costs.perDevice, minimum: 64)
    }

    static let devicesShareWhileObservationsWait = 0.25

    /// Adds device states that changed (newer than any waiting) to what waits, and moves as many
    /// as `batch` has room for into it: saved snapshots only, unless it took every observation.
    func addDevices(_ changes: DeviceSimulator.Changes, to batch: inout Batch) {
        let taken = state.withLock { state in
            state.pending.add(changes)
            let taken = state.pending.takeDevices(limit: batch.deviceLimit, includingRemovals: batch.tookEveryObservation)
            state.inFlight.devices = WaitingDevices(taken)
            if !state.pending.devices.isEmpty { state.leftOver = true }
            return taken
        }
        batch.writes.devices = WaitingDevices(taken)
    }

    /// When the writer takes its next batch, having finished one at `now`: nil for at once
    /// (waits for a commit, or what the last batch had no room for). Otherwise the writer sleeps
    /// until then, and a wait for a commit wakes it, or a request if the sleep is longer than
    /// the window allows it to wait.
    func nextTake(now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant? {
        state.withLock { state in
            if state.leftOver || state.isClosing || !state.waiters.isEmpty || !state.commitWaiters.isEmpty { return nil }
            state.writerSleeps = true
            let requestsWaiting = state.pending.requestCount > 0
            state.requestWakesWriter = !requestsWaiting && state.schedule.requestsMustWake
            return state.schedule.nextTake(after: now, requestsWaiting: requestsWaiting)
        }
    }

    /// Records how `batch` went and answers its waiters. A failed batch goes back in front of
    /// what was recorded since, to be tried again, unless that would pass the backlog limit;
    /// the commits waited for fail at once, so that no answer claims what was not committed.
    /// `now`: when the commit ended.
    func finish(
        _ batch: Batch, error: StoreError?, trimmed: HistoryRetention.TrimmedCounts, measured: WriteCosts.Measured = .init(),
        now: ContinuousClock.Instant = .now
    ) {
        let (waiters, commitWaiters, _) = state.withLock { state -> ([Waiter], [(ticket: CommitTicket, done: CommitWaiter)], ShedRecords) in
            var shed = ShedRecords()
            state.inFlight = PendingWrites()
            if let error {
                state.statistics.failedBatches += 1
                state.statistics.lastError = error
                var retry = batch.writes
                let items = retry.observationCount + retry.requestCount
                if retention == nil, state.pending.count + retry.count > backlogLimit {
                    // Device states are kept (at most one per device); the items are lost.
                    state.statistics.droppedItems += items
                    retry.dropItems()
                }
                state.pending.putBack(retry)
                shed = shedPastTheHistoryLimit(&state)
                checkBackedUp(&state)
            } else if !batch.writes.isEmpty {
                let size = batch.writes.count
                state.statistics.batchesWritten += 1
                state.statistics.itemsWritten += size
                state.statistics.largestBatch = max(state.statistics.largestBatch, size)
                if size > largeBatchSize { state.statistics.largeBatches += 1 }
                state.statistics.trimmedObservations += trimmed.observations
                state.statistics.trimmedRequests += trimmed.requests
                state.costs.learn(measured)
                if batch.writes.requestCount > 0 {
                    if let takenAt = batch.takenAt { state.schedule.committed(taking: now - takenAt) }
                    if let openedAt = batch.openedAt {
                        state.statistics.longestRequestWait = max(state.statistics.longestRequestWait, now - openedAt)
                    }
                }
            }
            let answered = state.commitWaiters.prefix { $0.ticket <= batch.ticket }.count
            var commitWaiters = Array(state.commitWaiters.prefix(answered))
            state.commitWaiters.removeFirst(answered)
            guard batch.isLast else { return (batch.waiters, commitWaiters, shed) }
            // Nothing is recorded once closing: flushes that came in during the last batch
            // are answered by it.
            state.isClosed = true
            let late = state.waiters
            state.waiters = []
            commitWaiters += state.commitWaiters
            state.commitWaiters = []
            return (batch.waiters + late, commitWaiters, shed)
        }
        let result: Result<Void, StoreError> = error.map { .failure($0) } ?? .success(())
        for waiter in waiters { waiter.resume(returning: result) }
        for waiter in commitWaiters { waiter.done(waiter.ticket, error == nil && waiter.ticket <= batch.ticket) }
    }

    /// What one item of each kind costs the writer lately.
    var costs: WriteCosts { state.withLock { $0.costs } }
}
