import Synchronization

/// The fault rules the control API sets: a `FaultInjector` that checks each request against
/// its rules in the order they were added. The first rule that fires decides the fault; the
/// rules after it do not see the request (their `everyNth` counts do not move). A rule that has
/// fired `count` times is removed.
///
/// Safe to use from every event loop. With no rules a request costs one atomic load.
public final class FaultRules: FaultInjector {
    /// Why a rule could not be added.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    private struct State {
        var rules: [FaultRule] = []
        var nextNumber = 1
        var random: SplitMix64
        /// Whether some rule looks at device tokens, so the path is read only when needed.
        var readsDeviceTokens = false
    }

    private let state: Mutex<State>
    private let hasRules = Atomic<Bool>(false)
    /// A cluster node's: a rule with `count` or `everyNth` is counted in the engine, with every
    /// node's requests (`decision`). The flag spares the lock on every request.
    private let countsInEngine = Atomic<Bool>(false)
    private let counter = Mutex<(any FaultCounter)?>(nil)

    /// Leaves the counting of `count` and `everyNth` to `counter`, a cluster's engine (device
    /// API requests).
    public func count(in counter: any FaultCounter) {
        self.counter.withLock { $0 = counter }
        countsInEngine.store(true, ordering: .releasing)
    }

    public func check(_ checks: [FaultCheck], done: @escaping @Sendable ([FaultCheckResult]) -> Void) {
        guard let counter = counter.withLock({ $0 }) else { return done([]) }
        counter.check(checks, done: done)
    }

    public var mayFault: Bool { hasRules.load(ordering: .acquiring) }

    /// `seed` makes `probability` repeatable; without one each run draws differently.
    public init(seed: UInt64? = nil) {
        var system = SystemRandomNumberGenerator()
        state = Mutex(State(random: SplitMix64(seed: seed ?? system.next())))
    }

    /// Adds a rule after the others; returns it with its id.
    @discardableResult
    public func add(_ rule: FaultRule) throws(Problem) -> FaultRule {
        if let problem = rule.problem { throw Problem(description: problem) }
        let added = state.withLock { state in
            var added = rule
            added.id = "fault-\(state.nextNumber)"
            added.matched = 0
            added.fired = 0
            state.nextNumber += 1
            state.rules.append(added)
            update(&state)
            return added
        }
        return added
    }

    /// Removes one rule; false if there is none with that id.
    @discardableResult
    public func remove(id: String) -> Bool {
        state.withLock { state in
            guard let index = state.rules.firstIndex(where: { $0.id == id }) else { return false }
            state.rules.remove(at: index)
            update(&state)
            return true
        }
    }

    public func removeAll() {
        state.withLock { state in
            state.rules = []
            update(&state)
        }
    }

    /// No rules, and the next is `fault-1` again (a reset): a cluster node that joins after a
    /// reset replays only the rules added since, and must number them as the others do (the
    /// engine counts a rule by its id).
    public func startAfresh() {
        state.withLock { state in
            state.rules = []
            state.nextNumber = 1
            update(&state)
        }
    }

    /// The active rules, in the order they are checked, with their counts so far.
    public var rules: [FaultRule] { state.withLock { $0.rules } }

    public func fault(for request: APNsRequest, connection: ConnectionInfo, now: EpochMilliseconds) -> Fault? {
        guard case .fault(let fault)? = decide(request, after: nil, checking: false) else { return nil }
        return fault
    }

    public func decision(for request: APNsRequest, connection: ConnectionInfo, now: EpochMilliseconds, after rule: String?) -> FaultDecision? {
        decide(request, after: rule, checking: countsInEngine.load(ordering: .acquiring))
    }

    /// The first rule after `after` (from the first with nil) that fires; with `checking`, the
    /// first counted rule that selects the request is left to the engine.
    private func decide(_ request: APNsRequest, after: String?, checking: Bool) -> FaultDecision? {
        guard hasRules.load(ordering: .acquiring) else { return nil }
        let topic = request.header("apns-topic")
        return state.withLock { state -> FaultDecision? in
            let token = state.readsDeviceTokens ? Self.deviceToken(in: request.path) : nil
            var start = state.rules.startIndex
            if let after {
                // Rules keep the order they were added in, so of their numbers: this finds the
                // rules after `after` even if it was removed meanwhile.
                let number = Self.number(after)
                start = state.rules.firstIndex { Self.number($0.id) > number } ?? state.rules.endIndex
            }
            for index in state.rules.indices where index >= start {
                guard state.rules[index].selects(deviceToken: token, topic: topic) else { continue }
                if checking, state.rules[index].isCounted {
                    let rule = state.rules[index]
                    let lucky = rule.probability.map { Double.random(in: 0..<1, using: &state.random) < $0 } ?? true
                    return .check(FaultCheck(rule: rule.id, everyNth: rule.everyNth, count: rule.count, lucky: lucky, fault: rule.fault))
                }
                state.rules[index].matched += 1
                let rule = state.rules[index]
                if let everyNth = rule.everyNth, rule.matched % everyNth != 0 { continue }
                if let probability = rule.probability, Double.random(in: 0..<1, using: &state.random) >= probability { continue }
                state.rules[index].fired += 1
                if let count = rule.count, rule.fired + 1 >= count {
                    state.rules.remove(at: index)
                    update(&state)
                }
                return .fault(rule.fault)
            }
            return nil
        }
    }

    public func ruleSpent(_ rule: String) {
        remove(id: rule)
    }

    /// `fault-12` → 12.
    private static func number(_ id: String) -> Int { Int(id.dropFirst("fault-".count)) ?? 0 }

    private func update(_ state: inout State) {
        state.readsDeviceTokens = state.rules.contains { $0.deviceToken != nil }
        hasRules.store(!state.rules.isEmpty, ordering: .releasing)
    }

    /// `<token>` of `/3/device/<token>`; nil for any other path.
    static func deviceToken(in path: String?) -> Substring? {
        let prefix = "/3/device/"
        guard let path, path.hasPrefix(prefix) else { return nil }
        return path.dropFirst(prefix.count)
    }
}
