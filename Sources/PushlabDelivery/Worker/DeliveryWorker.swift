import Foundation
import PushlabCore
import PushlabDelivery
import PushlabSimulator
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The thread that takes accepted pushes to the simulated devices when the runtime queues
/// them. It runs below the event loops' priority and holds off during a burst (`BusyHold`):
/// under a load test the answers come first and the phones catch up afterwards (or when a
/// reader needs them, on the reader's thread).
public final class DeliveryWorker: Sendable {
    private let simulator: DeviceSimulator
    private let capacity: Int
    private let wakeUp = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)

    /// Items delivered per turn: small, so a reader waiting for the worker's turn waits little.
    private static let batch = 64

    public init(simulator: DeviceSimulator, capacity: Int) {
        self.simulator = simulator
        self.capacity = capacity
        simulator.queueDeliveries(capacity: capacity) { [wakeUp] in wakeUp.signal() }
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
        var hold = BusyHold()
        let clock = ContinuousClock()
        while !stopping.load(ordering: .acquiring) {
            // At capacity nothing is lost (the event loops deliver a batch themselves, which
            // slows the sender), so a burst may use most of the queue before the worker takes CPU
            // from the answers (Benchmarks/results/history.md: starting at half cost ~3% at 100 x 10).
            let filling = simulator.queuedDeliveries >= capacity - capacity / 8
            let wait = hold.shouldWait(arrived: simulator.totalQueuedDeliveries, filling: filling, now: clock.now)
            let longLoad = hold.isLongLoad
            simulator.drainQueuedDeliveries(longLoad)
            // During a long load the event loops keep the queue down themselves: a worker at nice
            // 19 holding the queue's lock would only make them wait for it. Not even after one
            // quiet look: a dip in the intake (the store saving snapshots) let it take the lock,
            // the stalled event loops made the intake look quieter still, and the long load ended
            // with the queue filling. A load that stops ends the long load after its gap. A held
            // queue waits for the store to write what waits (`holdQueuedDeliveries`).
            if wait || longLoad || simulator.queuedDeliveriesHeld {
                _ = wakeUp.wait(timeout: .now() + .milliseconds(Self.holdPause))
                continue
            }
            if simulator.deliverQueued(limit: Self.batch) == 0 { wakeUp.wait() }
        }
        done.signal()
    }

    /// How long a held worker sleeps before it looks at the intake again.
    private static let holdPause = 50

    /// Stops the thread and delivers whatever is still queued on the caller's.
    public func stop() {
        stopping.store(true, ordering: .releasing)
        wakeUp.signal()
        done.wait()
        simulator.settle()
    }

    /// Nice 19 for this thread only (on Linux the nice value is per thread). Failing is harmless:
    /// the worker then competes with the event loops as an equal.
    private static func lowerPriority() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
    }
}
