import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits for SIGINT or SIGTERM.
enum ShutdownSignal {
    static func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "pushlab.signals")
            let sources = [SIGINT, SIGTERM].map { signalNumber in
                signal(signalNumber, SIG_IGN)
                return DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            }
            let resumed = ResumeOnce(continuation)
            for source in sources {
                source.setEventHandler {
                    sources.forEach { $0.cancel() }
                    resumed.resume()
                }
                source.resume()
            }
        }
    }

    private final class ResumeOnce: @unchecked Sendable {
        // Only touched on the signal queue.
        private var continuation: CheckedContinuation<Void, Never>?
        init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }
        func resume() {
            continuation?.resume()
            continuation = nil
        }
    }
}
