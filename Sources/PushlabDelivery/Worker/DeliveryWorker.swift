import Foundation
import PushlabCore
import PushlabDelivery
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The thread that takes accepted pushes to the simulated devices when the runtime queues
/// them. It runs below the event loops' priority and does what `DeliveryPacingStateMachine`
/// decides at each look: under a load test the answers come first and the phones catch up
/// afterwards (or when a reader needs them, on the reader's thread).
public final class DeliveryWorker: Sendable {
    private let pipeline: DeliveryPipeline
    private let capacity: Int
    private let wakeUp = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)

    /// Items delivered per turn: small, so a reader waiting for the worker's turn waits little.
    private static let batch = 64

    /// Makes `pipeline` queue its pushes (`DeliveryPipeline.queueDeliveries`) and delivers them.
    /// `log`: where every push queued is logged until its phone has taken it.
    public init(pipeline: DeliveryPipeline, capacity: Int, log: (any AcceptedPushLog)? = nil) {
        self.pipeline = pipeline
        self.capacity = capacity
        pipeline.queueDeliveries(capacity: capacity, log: log) { [wakeUp] in wakeUp.signal() }
        let thread = Thread { [self] in
            // Named from inside (on Linux a name set before `start()` never reaches the thread),
            // in at most 15 characters.
            Thread.current.name = "pushlab-deliver"
            run()
        }
        thread.start()
    }

    private func run() {
        Self.lowerPriority()
        var pacing = DeliveryPacingStateMachine(capacity: capacity)
        let clock = ContinuousClock()
        while !stopping.load(ordering: .acquiring) {
            let decision = pacing.looked(.init(
                arrived: pipeline.totalQueuedDeliveries, queued: pipeline.queuedDeliveries,
                storeHolds: pipeline.isHeld, now: clock.now
            ))
            pipeline.drain(decision.sendersDrain)
            switch decision.action {
            case .pause(let pause):
                _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(pause / .nanoseconds(1))))
            case .deliver:
                if pipeline.deliverQueued(limit: Self.batch) == 0 { wakeUp.wait() }
            }
        }
        done.signal()
    }

    /// Stops the thread and delivers whatever is still queued on the caller's.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wakeUp.signal()
        done.wait()
        pipeline.settle()
    }

    /// Nice 19 for this thread only (on Linux the nice value is per thread). Failing is harmless:
    /// the worker then competes with the event loops as an equal.
    private static func lowerPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
    }
}
