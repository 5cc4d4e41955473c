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

    func record(_ request: Received) {
        received.withLock { list in
            list.append(request)
            if list.count > Self.keep { list.removeFirst(list.count - Self.keep) }
        }
    }
}
