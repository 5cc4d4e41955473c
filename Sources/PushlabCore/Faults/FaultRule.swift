/// One rule of `FaultRules`: which requests it picks (all of them unless narrowed by device token
/// and topic, then every Nth of those, then at random), what it does to them, and how often
/// before it expires.
public struct FaultRule: Sendable, Equatable {
    /// Given by `FaultRules.add` (`fault-1`, `fault-2`, …); whatever is set here is replaced.
    public var id: String
    /// Only requests to this device token (the path's `/3/device/<token>`, any case).
    public var deviceToken: String?
    /// Only requests whose `apns-topic` header is this.
    public var topic: String?
    /// Only every Nth request that the token and topic let through (the Nth, the 2Nth, …).
    public var everyNth: Int?
    /// Of those, each one with this probability (0 to 1).
    public var probability: Double?
    /// Fires at most this many times, then the rule is removed; nil fires for ever.
    public var count: Int?
    /// What a picked request gets.
    public var fault: Fault

    /// Requests the token and topic let through so far (what `everyNth` counts).
    public internal(set) var matched = 0
    /// Times the rule fired so far.
    public internal(set) var fired = 0

    public init(
        deviceToken: String? = nil, topic: String? = nil, everyNth: Int? = nil, probability: Double? = nil,
        count: Int? = nil, fault: Fault
    ) {
        id = ""
        self.deviceToken = deviceToken?.lowercased()
        self.topic = topic
        self.everyNth = everyNth
        self.probability = probability
        self.count = count
        self.fault = fault
    }

    /// The longest delay a rule may add, in milliseconds: an hour.
    public static let maximumDelay: Int64 = 3_600_000

    /// Whether a cluster counts it in the engine, with every node's requests.
    public var isCounted: Bool { count != nil || everyNth != nil }

    /// The rule with the counts a cluster's engine has of it.
    public func counted(matched: Int, fired: Int) -> FaultRule {
        var rule = self
        rule.matched = matched
        rule.fired = fired
        return rule
    }

    /// How many more times it fires before it expires; nil for no limit.
    public var remaining: Int? { count.map { $0 - fired } }

    /// The largest `everyNth` and `count`: 2^53 - 1, the largest integer a JSON number holds
    /// exactly, so that a rule reads back (`GET /v1/faults`, JavaScript) as it was written.
    public static let largestCount = 9_007_199_254_740_991

    /// What is wrong with the rule, in words for the person who wrote it; nil when it is usable.
    public var problem: String? {
        if let deviceToken, deviceToken.isEmpty { return "deviceToken must not be empty" }
        if let topic, topic.isEmpty { return "topic must not be empty" }
        if let everyNth, !(1...Self.largestCount).contains(everyNth) { return "everyNth must be from 1 to \(Self.largestCount), not \(everyNth)" }
        if let probability, !(0...1).contains(probability) { return "probability must be between 0 and 1, not \(probability)" }
        if let count, !(1...Self.largestCount).contains(count) { return "count must be from 1 to \(Self.largestCount), not \(count)" }
        if case .delay(let milliseconds) = fault, !(0...Self.maximumDelay).contains(milliseconds) {
            return "delayMs must be from 0 to \(Self.maximumDelay) (an hour), not \(milliseconds)"
        }
        return nil
    }

    /// Whether the request is one the rule looks at (before `everyNth` and `probability`).
    func selects(deviceToken requestToken: Substring?, topic requestTopic: String?) -> Bool {
        if let topic, topic != requestTopic { return false }
        if let deviceToken {
            guard let requestToken, requestToken.count == deviceToken.count,
                  requestToken.lowercased() == deviceToken else { return false }
        }
        return true
    }
}
