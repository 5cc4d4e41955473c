import GRDB
import PushlabCore
import PushlabDelivery
import PushlabSimulator

/// Keeps what Pushlab records in SQLite: every observation, every APNs request (or the newest
/// ones, under a history limit), and each device's current state (as what changed since the
/// scenario the store was seeded from: `DeviceRows`).
///
/// Recording never waits for the disk: observations (the store is one of the simulator's
/// sinks) and request-log entries are appended to a buffer under a lock, and one background
/// thread commits them in one transaction every `flushInterval`, Notification Center entries
/// with them (from the observations). Device snapshots (settings, app states, badges, held and
/// pending notifications) of the devices changed meanwhile join a batch at most every 5 seconds,
/// and on every `flush()` and at `close()`: encoding a busy device per push would cost more than
/// the push. A file store is in WAL mode, so whatever a batch committed survives a crash or
/// `kill -9` of the process.
///
/// The crash window: every request recorded (an acknowledged push's record among them) is
/// committed within `crashWindow`, even under full load; the observations may wait longer
/// while the server is busy. With `durable`, the server answers only once a request's record is
/// committed (`afterCommit`, group commit), so `kill -9` loses no acknowledged push.
///
/// Opening a store starts its writer thread and nothing else: `connect(observations:requests:)`
/// starts recording until the function it returns is called. Call `close()` when done.
public final class PushlabStore: ObservationSink, RecordCommits, Sendable {
    /// The file, or ":memory:" for a database that lives and dies with the store.
    public let path: String
    let database: any DatabaseWriter
    let buffer: WriteBuffer
    let devices: any DeviceStates
    let writer: BatchWriter
    /// The newest observation and request the file held when it was opened: numbering goes on
    /// after them.
    public let savedObservationSequence: Int64
    public let savedRequestSequence: Int64
    /// Every request recorded is committed within this time, under any load.
    public let crashWindow: Duration
    /// The server answers a request only once its record is committed (`pushlab serve --durable`).
    public let isDurable: Bool

    /// Opens (or creates) the store at `path`; `devices` are the simulator's, whose changes it
    /// saves and which `load()` puts back.
    ///
    /// - Parameters:
    ///   - flushInterval: how long the writer sleeps between batches; at most a fifth of the
    ///     crash window (50 ms of 250), so that two commits and the sleep between them leave
    ///     room for a busy CPU's delays.
    ///   - largeBatchSize: a batch over this size is still written whole, and counted in
    ///     `statistics.largeBatches`.
    ///   - backlogLimit: at most this many observations and requests wait in memory; past it new
    ///     ones are dropped and counted, so a stalled disk cannot exhaust memory. Not with a
    ///     history limit: then what waits past it is shed oldest first (as trimmed), and the
    ///     limit bounds memory instead.
    ///   - busyRate: while more than this many observations and requests a second are recorded
    ///     (a load test), the writer holds the observations off, so the CPU goes to answering:
    ///     until half the backlog or history limit waits, a flush asks, or `longestHold` has
    ///     passed, after which it writes them until the load stops (`BusyHold`; queries see what
    ///     waits). The requests are never held. Nil: never.
    ///   - crashWindow: every request is committed within this time of being recorded
    ///     (`CommitSchedule`); at least 10 ms.
    ///   - durable: for `/v1/health`: the server waits for `afterCommit` before it answers.
    ///   - historyLimit: the file keeps about the newest this many observations and the newest
    ///     this many requests; older batches are deleted (`HistoryRetention`, counted in
    ///     `statistics`), and what waits to be written past it is never written. Nil keeps
    ///     everything. Must be at least 1.
    public init(
        path: String, devices: any DeviceStates, flushInterval: Duration = .milliseconds(50),
        largeBatchSize: Int = 50_000, backlogLimit: Int = 2_000_000, busyRate: Int? = 10_000, longestHold: Duration = .seconds(10),
        historyLimit: Int? = nil, crashWindow: Duration = .milliseconds(250), durable: Bool = false
    ) throws(StoreError) {
        if let historyLimit, historyLimit < 1 {
            throw StoreError(.invalidSetting, "The history limit must be at least 1 (nil keeps everything), not \(historyLimit)")
        }
        guard crashWindow >= Self.shortestCrashWindow else {
            throw StoreError(.invalidSetting, "The crash window must be at least \(Self.shortestCrashWindow), not \(crashWindow)")
        }
        let database = try StoreDatabase.open(path)
        let (lastObservation, lastRequest, lastPushOffsets) = try StoreDatabase.read(database, path: path) { db in
            (try ObservationRows.maximumSequence(in: db), try RequestRows.maximumSequence(in: db), try AcceptedPushRows.lastOffsets(in: db))
        }
        // The writer may look many times a second (a wait for a commit wakes it): its intake is
        // measured over 50 ms at least, so that a look right after another is not a burst.
        let hold = busyRate.map { BusyHold(busyRate: $0, longest: longestHold, lookInterval: .milliseconds(50), start: .now) }
        let retention = historyLimit.map(HistoryRetention.init)
        let schedule = CommitSchedule(window: crashWindow, interval: max(min(flushInterval, crashWindow / 5), .milliseconds(1)))
        let buffer = WriteBuffer(largeBatchSize: largeBatchSize, backlogLimit: backlogLimit, hold: hold, schedule: schedule, retention: retention)
        buffer.resumeLogOffsets(after: lastPushOffsets)
        self.path = path
        self.crashWindow = crashWindow
        isDurable = durable
        self.database = database
        self.buffer = buffer
        self.devices = devices
        savedObservationSequence = lastObservation
        savedRequestSequence = lastRequest
        let checkpointer = path == StoreDatabase.inMemoryPath ? nil : try WALCheckpointer(path: path)
        writer = BatchWriter(database: database, path: path, buffer: buffer, devices: devices, retention: retention, checkpointer: checkpointer)
        do {
            try writer.readNotificationLog()
        } catch {
            throw StoreError(.unreadable, "Cannot read the Notification Center log in \(path): \(error)")
        }
        checkpointer?.start()
        writer.start()
    }

    /// A window shorter than this would keep the writer committing all the time.
    public static let shortestCrashWindow = Duration.milliseconds(10)

    /// Records `observations`' batches and `requests`' entries from now on, numbering both on
    /// after what the file holds (a new observation must not reuse the sequence, the primary
    /// key, of a saved one). While as many wait as the store may hold without dropping or
    /// shedding any, it reports a backlog (`DeliveryBacklog`) to whoever heeds it.
    public func connect(observations: DeviceSimulator, requests: RequestLog) -> @Sendable () -> Void {
        observations.resumeSequence(after: savedObservationSequence)
        requests.resumeSequence(after: savedRequestSequence)
        let sink = observations.addSink(self)
        let observer = requests.observe { [buffer, writer] entries in
            if buffer.append(entries) { writer.wake() }
        }
        return {
            observations.removeSink(sink)
            requests.removeObserver(observer)
        }
    }

    /// Called on the server's event loops: appends to the buffer and returns.
    public func record(_ observations: [Observation]) {
        buffer.append(observations)
    }

    /// A run of queued pushes' observations: one lock for all of them.
    public func record(batches: [[Observation]]) {
        buffer.append(batches: batches)
    }

    /// The same, with the positions of the log its pushes reached: committed together.
    public func record(batches: [[Observation]], taking: [LoggedPushPosition]) {
        buffer.append(batches: batches, taking: taking)
    }

    /// Observations and requests recorded and not yet committed (a batch being written counts).
    public var backlog: Int { buffer.backlog }

    public var statistics: StoreStatistics { buffer.statistics }

    /// Writes everything recorded so far, and every device changed so far, and returns once it
    /// is committed, with the Notification Center log compacted of every entry removed (and
    /// contents no entry uses). Throws the batch's error if the commit failed, or `.closed`
    /// after `close()`.
    public func flush() async throws(StoreError) {
        let result = await withCheckedContinuation { continuation in
            if buffer.addFlushWaiter(continuation) { writer.wake() }
        }
        try result.get()
    }

    /// Calls `done` once every request recorded so far is committed, or its commit failed; the
    /// next batch answers every wait that came before it (group commit). Recording must have
    /// happened before the call, on this thread or before it: a transport publishes a read's
    /// records, then asks.
    public func afterCommit(_ done: @escaping @Sendable (CommitTicket, _ committed: Bool) -> Void) -> CommitTicket {
        let (ticket, wakeWriter) = buffer.afterCommit(done)
        if wakeWriter { writer.wake() }
        return ticket
    }

    /// Stops recording, writes what is left, and stops the writer thread. Queries and `load()`
    /// still work afterwards; a second call does nothing.
    public func close() async throws(StoreError) {
        let result = await withCheckedContinuation { continuation in
            if buffer.close(continuation) { writer.wake() }
        }
        try result.get()
    }
}
