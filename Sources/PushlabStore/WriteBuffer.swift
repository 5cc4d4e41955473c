import PushlabCore
import PushlabPacing
import PushlabSimulator
import Synchronization

/// Everything the recording threads and the writer thread share, behind one lock held only
/// to append or swap arrays: recording on an event loop never waits for SQLite.
final class WriteBuffer: Sendable {
    typealias Waiter = CheckedContinuation<Result<Void, StoreError>, Never>

    /// What the writer took in one go, and who waits for it to be committed.
    struct Batch: Sendable {
        var writes: PendingWrites
        var waiters: [Waiter]
        /// `close()` was called: the writer stops after this batch.
        var isLast: Bool
        /// Nothing was recorded since the writer's previous look.
        var isQuiet = false
    }

    private struct State {
        var pending = PendingWrites()
        /// TakenBatch by the writer, not yet committed: queries still see it here.
        var inFlight = PendingWrites()
        var waiters: [Waiter] = []
        var isClosing = false
        var isClosed = false
        var statistics = StoreStatistics()
        /// Items recorded since the start, and at the writer's last look.
        var recorded = 0
        var recordedAtLastLook = 0
        /// When the writer holds off (nil: never).
        var hold: BusyHold?

        var backlog: Int { pending.count + inFlight.count }
    }

    private let state = Mutex(State())
    let largeBatchSize: Int
    let backlogLimit: Int
    let retention: HistoryRetention?

    /// `hold`: while the server is busy, the writer holds off and the CPU goes to answering; the
    /// store catches up in the pauses, or when half its backlog limit waits, a flush asks, or the
    /// hold has lasted long enough. Nil: every look takes a batch.
    ///
    /// `retention`: what waits past the history limit is shed, oldest first, instead of written
    /// and then deleted, so the backlog limit never applies: a load the disk cannot keep up with
    /// loses nothing the history limit would keep, and memory stays bounded by the limit.
    init(largeBatchSize: Int, backlogLimit: Int, hold: BusyHold? = nil, retention: HistoryRetention? = nil) {
        self.largeBatchSize = max(1, largeBatchSize)
        self.backlogLimit = max(1, backlogLimit)
        self.retention = retention
        state.withLock { $0.hold = hold }
    }

    // MARK: Recording (any thread)

    func append(_ observations: [Observation]) { record(observations) { $0.append($1) } }

    /// A batch of requests as the log published it (numbered on from the store's last one).
    func append(_ requests: [RequestLog.Entry]) { record(requests) { $0.append($1) } }

    private func record<Item>(_ items: [Item], appending append: (inout PendingWrites, [Item]) -> Void) {
        // What is shed comes back out of the lock and is freed here, after it.
        _ = state.withLock { state -> ShedRecords in
            guard !state.isClosing else { return ShedRecords() }
            state.recorded += items.count
            guard retention == nil else {
                append(&state.pending, items)
                return shedPastTheHistoryLimit(&state)
            }
            let room = max(0, backlogLimit - state.backlog)
            if items.count <= room {
                append(&state.pending, items)
            } else {
                if room > 0 { append(&state.pending, Array(items.prefix(room))) }
                state.statistics.droppedItems += items.count - room
            }
            return ShedRecords()
        }
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
            shed.observations = taken.chunks
        }
        if retention.isExceeded(by: state.pending.requestCount) {
            let taken = state.pending.shedRequests(keeping: retention.limit)
            state.statistics.trimmedRequests += taken.count
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

    // MARK: The writer's side

    /// The next batch, or nil while the hold says to wait and nobody waits for a commit.
    func takeBatch(now: ContinuousClock.Instant = .now) -> Batch? {
        state.withLock { state in
            let intake = state.recorded - state.recordedAtLastLook
            state.recordedAtLastLook = state.recorded
            // Half: past the limit items would be lost, so the writer starts with room to spare.
            let filling = state.pending.count >= backlogLimit / 2
            if state.waiters.isEmpty, !state.isClosing,
               state.hold?.shouldWait(arrived: Int64(state.recorded), filling: filling, now: now) == true {
                return nil
            }
            state.inFlight = state.pending
            state.pending = PendingWrites()
            let waiters = state.waiters
            state.waiters = []
            return Batch(writes: state.inFlight, waiters: waiters, isLast: state.isClosing, isQuiet: intake == 0)
        }
    }

    /// Records how `batch` went and answers its waiters. A failed batch goes back in front of
    /// what was recorded since, to be tried again, unless that would pass the backlog limit.
    func finish(_ batch: Batch, error: StoreError?, trimmed: HistoryRetention.TrimmedCounts) {
        let (waiters, _) = state.withLock { state -> ([Waiter], ShedRecords) in
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
            } else if !batch.writes.isEmpty {
                let size = batch.writes.count
                state.statistics.batchesWritten += 1
                state.statistics.itemsWritten += size
                state.statistics.largestBatch = max(state.statistics.largestBatch, size)
                if size > largeBatchSize { state.statistics.largeBatches += 1 }
                state.statistics.trimmedObservations += trimmed.observations
                state.statistics.trimmedRequests += trimmed.requests
            }
            guard batch.isLast else { return (batch.waiters, shed) }
            // Nothing is recorded once closing: flushes that came in during the last batch
            // are answered by it.
            state.isClosed = true
            let late = state.waiters
            state.waiters = []
            return (batch.waiters + late, shed)
        }
        let result: Result<Void, StoreError> = error.map { .failure($0) } ?? .success(())
        for waiter in waiters { waiter.resume(returning: result) }
    }
}
