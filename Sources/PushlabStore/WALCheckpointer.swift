import Dispatch
import Foundation
import GRDB
import Synchronization

/// Copies the write-ahead log into the database file on a thread and connection of its own, so
/// that the writer's commits never wait for it. Left to SQLite, the commit that passes 1,000
/// pages does it: under load, copying megabytes and an fsync made such a commit take hundreds of
/// milliseconds, more than the crash window lets a request wait.
///
/// Each checkpoint is PASSIVE (it copies what it can and waits for no one) and runs right after
/// a commit, at most every `spacing`: in the pause before the writer's next commit. Under a steady
/// load the writer commits again before a checkpoint ends, so the log was never wholly copied,
/// never started over, and grew by every byte written (a gigabyte for two million pushes, each
/// frame appended to fresh, zero-filled pages: a fifth of the writer's time). Past
/// `restartFrames`, the writer runs a RESTART between two of its batches (`restartIfWanted`),
/// after this thread's checkpoint under way: it copies the few frames committed since, and the
/// next transaction starts the log over. From this thread a RESTART waited for the write lock
/// and lost it to the writer's next batch every time.
final class WALCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let spacing: Duration
    private let wakeUp = DispatchSemaphore(value: 0)
    /// A commit came since the last checkpoint, and the thread has been signalled for it.
    private let signalled = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    private let restartFrames: Int
    private let restartWanted = Atomic<Bool>(false)
    /// Held through each checkpoint: SQLite refuses a second one while one runs.
    private let checkpointing = Mutex<Void>(())

    init(path: String, spacing: Duration = .milliseconds(250), restartFrames: Int = 16_384) throws(StoreError) {
        var configuration = Configuration()
        configuration.label = "PushlabStore.checkpoints"
        // With NORMAL, each checkpoint syncs the log before and the file after (a commit does not).
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        do {
            connection = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw .cannotOpen(path, error)
        }
        self.spacing = spacing
        self.restartFrames = restartFrames
    }

    func start() {
        let thread = Thread { [self] in
            Thread.current.name = "pushlab-wal"
            run()
        }
        thread.start()
    }

    /// The writer committed: a checkpoint follows, unless one is on its way.
    func committed() {
        guard !signalled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeUp.signal()
    }

    /// Runs `restart` (a RESTART checkpoint on the writer's connection) if the log has grown past
    /// `restartFrames`, once this thread's checkpoint is done. A failure (a reader in the way)
    /// leaves the log to the next request.
    func restartIfWanted(_ restart: () throws -> Void) {
        guard restartWanted.exchange(false, ordering: .acquiringAndReleasing) else { return }
        checkpointing.withLock { _ in try? restart() }
    }

    /// Ends the thread after the checkpoint under way, if any (SQLite checkpoints the rest when
    /// the last connection closes).
    func stop() {
        stopped.store(true, ordering: .releasing)
        wakeUp.signal()
    }

    private func run() {
        let clock = ContinuousClock()
        while true {
            wakeUp.wait()
            if stopped.load(ordering: .acquiring) { return }
            signalled.store(false, ordering: .releasing)
            let started = clock.now
            // A failed checkpoint is tried again after the next commit; the log only grows meanwhile.
            let frames = checkpointing.withLock { _ in try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive).walFrameCount } }
            if let frames, frames > restartFrames { restartWanted.store(true, ordering: .releasing) }
            let rest = spacing - (clock.now - started)
            if rest > .zero { Thread.sleep(forTimeInterval: rest.seconds) }
        }
    }

    /// A RESTART checkpoint on the writer's connection. A reader still on the log fails it at
    /// once rather than holding the writer (and every request waiting for a commit) for the busy
    /// timeout; the next request tries again.
    static func restartLog(of database: any DatabaseWriter) throws {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(StoreDatabase.busyTimeout * 1000))") }
            _ = try db.checkpoint(.restart)
        }
    }
}
