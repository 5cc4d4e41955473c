import Dispatch
import Foundation
import GRDB
import PushlabSimulator
import Synchronization

/// The one thread that writes. It takes what was recorded when its `CommitSchedule` says (every
/// `interval`, sooner when the crash window needs it, at once when a flush or a wait for a
/// commit asks or the last batch left work behind), commits it in one transaction, and answers
/// whoever waited for it. A plain thread: SQLite blocks, and blocking belongs neither on an
/// event loop nor on Swift's cooperative pool.
final class BatchWriter: Sendable {
    private let database: any DatabaseWriter
    private let path: String
    private let buffer: WriteBuffer
    private let devices: any DeviceStates
    /// Device snapshots are taken at most this often (and on every flush and at close): a busy
    /// device changes with every push, and encoding it each batch would cost more than the pushes.
    private let deviceInterval: Duration
    private let retention: HistoryRetention?
    /// A file store's: told of each commit (nil in memory).
    private let checkpointer: WALCheckpointer?
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Used by the writer thread only.
    nonisolated(unsafe) private var fingerprints = SnapshotFingerprints()
    nonisolated(unsafe) private var contentTexts = ContentTexts()
    nonisolated(unsafe) private var notificationLog = NotificationLog()
    /// Set when another connection changed the log (a reseed): the writer reads it again.
    private let logChangedElsewhere = Atomic(false)

    init(
        database: any DatabaseWriter, path: String, buffer: WriteBuffer, devices: any DeviceStates,
        deviceInterval: Duration = .seconds(5), retention: HistoryRetention? = nil, checkpointer: WALCheckpointer? = nil
    ) {
        self.checkpointer = checkpointer
        self.deviceInterval = deviceInterval
        self.retention = retention
        self.database = database
        self.path = path
        self.buffer = buffer
        self.devices = devices
    }

    /// Reads what compacting the Notification Center log needs (before `start()`: the thread
    /// owns it after).
    func readNotificationLog() throws {
        try database.read { db in try notificationLog.readIfNeeded(in: db) }
    }

    func start() {
        let thread = Thread { [self] in
            // Named from inside: on Linux a name given before `start()` never reaches the OS
            // thread, and names over 15 characters are refused.
            Thread.current.name = "pushlab-store"
            run()
        }
        thread.start()
    }

    /// How long after a pass of device snapshots that took `cost` (with the batch it joined) the
    /// next may come: `interval`, or longer so that passes take at most a tenth of the writer's
    /// time. Under a load test every phone changes (its Notification Center, which the pass then
    /// finds unchanged) and a pass over 100,000 of them costs over a second; a flush, a quiet
    /// moment or `close()` still saves them at once.
    static func spacing(after cost: Duration, interval: Duration) -> Duration {
        max(interval, cost * 9)
    }

    /// Runs the next batch now instead of at the end of the interval.
    func wake() { wakeUp.signal() }

    /// Another connection rewrote the Notification Center log and its contents.
    func notificationLogChanged() { logChangedElsewhere.store(true, ordering: .releasing) }

    private func run() {
        let clock = ContinuousClock()
        var lastSnapshot = clock.now
        var snapshotSpacing = deviceInterval
        while true {
            if let next = buffer.nextTake(now: clock.now) {
                let wait = max(.zero, next - clock.now)
                _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(clamping: wait.nanoseconds)))
            }
            var batch = buffer.takeBatch(now: clock.now)
            // Taken after the waiters: a device changed before `flush()` was called is in this batch.
            // Nothing recorded since the last look: the devices have settled, save them now.
            var tookDevices = false
            if batch.maySaveDevices,
               !batch.waiters.isEmpty || batch.isLast || batch.isQuiet || batch.devicesWaiting || clock.now - lastSnapshot >= snapshotSpacing {
                buffer.addDevices(devices.takeChanges(), to: &batch)
                lastSnapshot = clock.now
                tookDevices = true
            } else if batch.maySaveDevices, devices.hasUnsavedHeldPushes {
                // A push stored for an offline phone (or held back) was taken: its device goes
                // with the batch that commits the taking, not within the snapshot interval.
                buffer.addDevices(devices.takeHeldPushChanges(), to: &batch)
            }
            // On every core only when the writer has caught up: during a load the cores answer.
            // A flush compacts the Notification Center log whole; closing leaves it for the next run.
            let compactingAll = !batch.waiters.isEmpty && !batch.isLast
            let (error, trimmed, measured) = write(batch.writes, devicesOnEveryCore: batch.tookEveryObservation, compactingAll: compactingAll)
            if tookDevices { snapshotSpacing = Self.spacing(after: .seconds(measured.deviceSeconds), interval: deviceInterval) }
            buffer.finish(batch, error: error, trimmed: trimmed, measured: measured, now: clock.now)
            if error == nil, !batch.writes.isEmpty { checkpointer?.committed() }
            checkpointer?.restartIfWanted { try WALCheckpointer.restartLog(of: database) }
            if batch.isLast {
                checkpointer?.stop()
                return
            }
        }
    }

    /// Commits `writes` in one transaction, timing each part (`WriteCosts` sizes the next batch
    /// from it).
    private func write(
        _ writes: PendingWrites, devicesOnEveryCore: Bool, compactingAll: Bool
    ) -> (StoreError?, HistoryRetention.TrimmedCounts, WriteCosts.Measured) {
        guard !writes.isEmpty else { return (nil, .init(), .init()) }
        if logChangedElsewhere.exchange(false, ordering: .acquiring) { notificationLog.forget() }
        let clock = ContinuousClock()
        let start = clock.now
        do {
            var written: [SnapshotFingerprints.Written] = []
            var (trimmed, measured) = try database.write { [fingerprints, self] db in
                var lap = Lap(clock)
                let observations = writes.observationsInOrder
                let requests = writes.requestItems
                let logged = try notificationLog.append(observations, in: db)
                let batch = try BatchIndexRows.insert(observations: observations, requests: requests, into: db)
                if let batch, writes.observationCount > 0 {
                    try ObservationRows.insert(observations, batch: batch, contents: &contentTexts, into: db)
                }
                let observationSeconds = lap.next()
                if let batch, writes.requestCount > 0 { try RequestRows.insert(requests, batch: batch, into: db) }
                // With the observations of the pushes taken: a restart finds both or neither.
                try AcceptedPushRows.write(writes.pushChunks, taking: writes.readyTakings, into: db)
                let indexAndRequestSeconds = lap.next()
                written = try DeviceRows.write(
                    writes.devices.changes, into: db, log: &notificationLog, unlessSaved: fingerprints, onEveryCore: devicesOnEveryCore
                )
                // After the devices: a device removed in this batch takes its entries' contents.
                try notificationLog.compactIfDue(logged: logged, compactingAll: compactingAll, in: db)
                let deviceSeconds = lap.next()
                // In the batch's transaction: a crash keeps both or neither.
                let trimmed = try retention?.trim(in: db) ?? HistoryRetention.TrimmedCounts()
                return (trimmed, WriteCosts.Measured(
                    observations: writes.observationCount, requests: writes.requestCount, devices: writes.devices.count,
                    observationSeconds: observationSeconds, indexAndRequestSeconds: indexAndRequestSeconds, deviceSeconds: deviceSeconds
                ))
            }
            measured.totalSeconds = (clock.now - start).seconds
            fingerprints.record(written)
            return (nil, trimmed, measured)
        } catch {
            // Content rows this batch added were rolled back, and their ids may be given again;
            // what the log holds is read again.
            notificationLog.forget()
            return (.cannotWrite(path, error), .init(), .init())
        }
    }
}

/// Seconds since the previous lap.
private struct Lap {
    let clock: ContinuousClock
    var last: ContinuousClock.Instant

    init(_ clock: ContinuousClock) {
        self.clock = clock
        last = clock.now
    }

    mutating func next() -> Double {
        let now = clock.now
        defer { last = now }
        return (now - last).seconds
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
