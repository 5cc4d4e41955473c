import PushlabCore
import PushlabScenario
import Synchronization

/// A stand-in for the provider's backend, for apps whose `provider.baseURL` is
/// `pushlab:stand-in`: it answers by its rules and keeps the requests it got, so a scenario or a
/// test can script "the backend rejects the registration" or "the backend is slow" without one.
public final class StandInBackend: Sendable {
    /// A request as the stand-in got it.
    public struct Received: Sendable {
        public var time: EpochMilliseconds
        public var method: String
        public var path: String
        public var query: String?
        public var headers: [(name: String, value: String)]
        public var body: String
        public var status: Int
    }

    /// The newest requests kept.
    static let keep = 1000
    private let rules = Mutex<[StandInRule]>([])
    private let received = Mutex<[Received]>([])
    private let stopping = Atomic<Bool>(false)

    public init(rules: [StandInRule] = []) {
        replaceRules(rules)
    }

    public var currentRules: [StandInRule] { rules.withLock { $0 } }
    public var requests: [Received] { received.withLock { $0 } }

    public func replaceRules(_ replacement: [StandInRule]) {
        rules.withLock { $0 = replacement }
    }

    public func clearRequests() {
        received.withLock { $0 = [] }
    }

    /// The rule that answers, or nil for the default 200 `{}`.
    func rule(method: String, path: String) -> StandInRule? {
        rules.withLock { $0.first { $0.matches(method: method, path: path) } }
    }

    /// Delayed answers stop waiting from now on (the control API is shutting down): a rule's
    /// delay of up to ten minutes must not hold the server's exit.
    public func stopDelays() {
        stopping.store(true, ordering: .releasing)
    }

    /// Waits out a rule's delay in real time; false if the server began to shut down meanwhile.
    func waitOut(seconds: Double) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64((seconds * 1000).rounded())))
        while !stopping.load(ordering: .acquiring) {
            let left = clock.now.duration(to: deadline)
            if left <= .zero { return true }
            try await Task.sleep(for: min(left, Self.stopCheckInterval))
        }
        return false
    }

    /// How soon a waiting answer notices a shutdown.
    static let stopCheckInterval = Duration.milliseconds(50)

    func record(_ request: Received) {
        received.withLock { list in
            list.append(request)
            if list.count > Self.keep { list.removeFirst(list.count - Self.keep) }
        }
    }
}
