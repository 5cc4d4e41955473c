import PushlabSimulator
import Synchronization

/// Wakes tests waiting for an observation the moment a device records it. It is one of the
/// simulator's sinks, so a waiter is resumed from the batch that holds its observation, with no
/// polling; observations recorded before the wait began are found in the log.
final class ObservationWaiters: ObservationSink {
    private struct Waiter: Sendable {
        var device: String
        var since: Int64
        var matches: @Sendable (Observation) -> Bool
        var continuation: CheckedContinuation<Observation, any Error>
    }

    private let log: InMemoryObservationLog
    private let waiting = Mutex<[UInt64: Waiter]>([:])
    private let nextID = Atomic<UInt64>(0)

    init(log: InMemoryObservationLog) {
        self.log = log
    }

    /// The first observation of `device` after sequence `since` that `matches`: at once if the
    /// log has it, otherwise when it is recorded. Throws `CancellationError` when cancelled.
    func first(device: String, since: Int64, matching matches: @escaping @Sendable (Observation) -> Bool) async throws -> Observation {
        let id = nextID.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Registered before the log is read, so an observation recorded in between is
                // seen by one or the other; whichever removes the waiter resumes it, once.
                waiting.withLock { $0[id] = Waiter(device: device, since: since, matches: matches, continuation: continuation) }
                if let recorded = log.observations(device: device, since: since).first(where: matches) {
                    resume(id, with: .success(recorded))
                }
                // Cancelled before the handler could find the waiter.
                if Task.isCancelled { resume(id, with: .failure(CancellationError())) }
            }
        } onCancel: {
            resume(id, with: .failure(CancellationError()))
        }
    }

    /// Waits registered and not yet resumed.
    var count: Int { waiting.withLock { $0.count } }

    func record(_ observations: [Observation]) {
        // The predicates are the tests' code: run outside the lock, and `resume` settles a race
        // with a timeout or a cancellation (only the one that removes the waiter resumes it).
        for (id, waiter) in waiting.withLock({ $0 }) {
            let found = observations.first { $0.deviceID == waiter.device && $0.sequence > waiter.since && waiter.matches($0) }
            if let found { resume(id, with: .success(found)) }
        }
    }

    private func resume(_ id: UInt64, with result: Result<Observation, any Error>) {
        waiting.withLock { $0.removeValue(forKey: id) }?.continuation.resume(with: result)
    }
}
