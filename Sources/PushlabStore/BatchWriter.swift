import Dispatch
import Foundation
import GRDB
import PushlabSimulator

/// The one thread that writes. It wakes every `interval`, or at once when a flush asks, takes
/// what was recorded and which devices changed, commits it all in one transaction, and answers
/// the flushes that were waiting. A plain thread: SQLite blocks, and blocking belongs neither
/// on an event loop nor on Swift's cooperative pool.
final class BatchWriter: Sendable {
    private let database: any DatabaseWriter
    private let path: String
    private let buffer: WriteBuffer
    private let devices: any DeviceStates
    private let interval: DispatchTimeInterval
    /// Device snapshots are taken at most this often (and on every flush and at close): a busy
    /// device changes with every push, and encoding it each batch would cost more than the pushes.
    private let deviceInterval: Duration
    private let retention: HistoryRetention?
    private let wakeUp = DispatchSemaphore(value: 0)
    /// Used by the writer thread only.
    nonisolated(unsafe) private var fingerprints = SnapshotFingerprints()
    nonisolated(unsafe) private var contentTexts = ContentTexts()
    nonisolated(unsafe) private var contentIDs = ContentIDs()

    init(
        database: any DatabaseWriter, path: String, buffer: WriteBuffer, devices: any DeviceStates, interval: Duration,
        deviceInterval: Duration = .seconds(5), retention: HistoryRetention? = nil
    ) {
        self.deviceInterval = deviceInterval
        self.retention = retention
        self.database = database
        self.path = path
        self.buffer = buffer
        self.devices = devices
        let (seconds, attoseconds) = interval.components
        let nanoseconds = max(1_000_000, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        self.interval = .nanoseconds(Int(clamping: nanoseconds))
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

    private func run() {
        let clock = ContinuousClock()
        var lastSnapshot = clock.now
        var snapshotSpacing = deviceInterval
        while true {
            _ = wakeUp.wait(timeout: .now() + interval)
            guard var batch = buffer.takeBatch() else { continue }
            // TakenBatch after the waiters: a device changed before `flush()` was called is in this batch.
            // Nothing recorded since the last look: the devices have settled, save them now.
            var snapshotStart: ContinuousClock.Instant?
            if !batch.waiters.isEmpty || batch.isLast || batch.isQuiet || clock.now - lastSnapshot >= snapshotSpacing {
                snapshotStart = clock.now
                batch.writes.add(devices.takeChanges())
                lastSnapshot = clock.now
            }
            let (error, trimmed) = write(batch.writes)
            if let snapshotStart { snapshotSpacing = Self.spacing(after: clock.now - snapshotStart, interval: deviceInterval) }
            buffer.finish(batch, error: error, trimmed: trimmed)
            if batch.isLast { return }
        }
    }

    private func write(_ writes: PendingWrites) -> (StoreError?, HistoryRetention.TrimmedCounts) {
        guard !writes.isEmpty else { return (nil, .init()) }
        do {
            var written: [SnapshotFingerprints.Written] = []
            let trimmed = try database.write { [fingerprints, self] db in
                try NotificationCenterRows.apply(writes.observations, contents: &contentIDs, into: db)
                let batch = try BatchIndexRows.insert(observations: writes.observations, requests: writes.requests, into: db)
                if let batch, writes.observationCount > 0 {
                    try ObservationRows.insert(Array(writes.observations), batch: batch, contents: &contentTexts, into: db)
                }
                if let batch, writes.requestCount > 0 { try RequestRows.insert(Array(writes.requests), batch: batch, into: db) }
                written = try DeviceRows.write(writes.devices, into: db, contents: &contentIDs, unlessSaved: fingerprints)
                // In the batch's transaction: a crash keeps both or neither.
                return try retention?.trim(in: db) ?? HistoryRetention.TrimmedCounts()
            }
            fingerprints.record(written)
            return (nil, trimmed)
        } catch {
            // Content rows this batch added were rolled back, and their ids may be given again.
            contentIDs = ContentIDs()
            return (.cannotWrite(path, error), .init())
        }
    }
}
