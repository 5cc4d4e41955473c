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
/// a commit, at most every `spacing`: in the pause before the writer's next commit, so that it
/// usually copies the whole log and the writer starts the log over at its next transaction.
final class WALCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let spacing: Duration
    private let wakeUp = DispatchSemaphore(value: 0)
    /// A commit came since the last checkpoint, and the thread has been signalled for it.
    private let signalled = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    init(path: String, spacing: Duration = .milliseconds(250)) throws(StoreError) {
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
            _ = try? connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            let rest = spacing - (clock.now - started)
            if rest > .zero { Thread.sleep(forTimeInterval: rest.seconds) }
        }
    }
}
