/// How APNs answers under load besides its rules (issue 49): how long each answer takes, per
/// environment; what a connection's first answer costs more (its TLS handshake and first
/// request); the share of requests Apple fails on its side (500, 503) whatever they were; and
/// the share of connections it sends GOAWAY `Shutdown` once they have lived a while. A
/// provider's rate is then bounded as against Apple: connections × streams in flight ÷ latency.
///
/// Off unless a scenario's `policy.latency` sets it. The draws follow `seed`, and each
/// connection's own sequence (the seed and the connection's number), so a run can be replayed.
public struct LatencyProfile: Sendable, Equatable {
    public var development: LatencyDistribution?
    public var production: LatencyDistribution?
    /// Added to a connection's first answer.
    public var connectionStart: LatencyDistribution?
    /// Shares (0 to 1) of device API requests answered 500 `InternalServerError` and 503
    /// `ServiceUnavailable`, after the fault rules and before every other check. They do not
    /// count against the connection's error budget: they are Apple's failures, not the provider's.
    public var internalServerErrorRate: Double
    public var serviceUnavailableRate: Double
    /// The share (0 to 1) of connections that get GOAWAY `Shutdown` once they have lived
    /// `goAwayAfter` (milliseconds, drawn per connection), at their next request.
    public var goAwayShare: Double
    public var goAwayAfter: LatencyDistribution?
    public var seed: UInt64

    public init(
        development: LatencyDistribution? = nil, production: LatencyDistribution? = nil, connectionStart: LatencyDistribution? = nil,
        internalServerErrorRate: Double = 0, serviceUnavailableRate: Double = 0, goAwayShare: Double = 0,
        goAwayAfter: LatencyDistribution? = nil, seed: UInt64 = 49
    ) {
        self.development = development
        self.production = production
        self.connectionStart = connectionStart
        self.internalServerErrorRate = internalServerErrorRate
        self.serviceUnavailableRate = serviceUnavailableRate
        self.goAwayShare = goAwayShare
        self.goAwayAfter = goAwayAfter
        self.seed = seed
    }

    public func latency(for environment: APNsEnvironment) -> LatencyDistribution? {
        environment == .development ? development : production
    }

    /// What makes it unusable; nil when fine.
    public var problem: String? {
        let distributions: [(String, LatencyDistribution?)] = [
            ("latency.development", development), ("latency.production", production), ("latency.connectionStart", connectionStart),
        ]
        for (name, distribution) in distributions {
            if let problem = distribution?.problem(name) { return problem }
        }
        if let problem = goAwayAfter?.problem("latency.goAway.after", longest: LatencyDistribution.day, spelled: "a day") { return problem }
        for (name, rate) in [("internalServerErrorRate", internalServerErrorRate), ("serviceUnavailableRate", serviceUnavailableRate), ("goAway.share", goAwayShare)] {
            if !(0...1).contains(rate) { return "latency.\(name) must be from 0 to 1, not \(rate)" }
        }
        if internalServerErrorRate + serviceUnavailableRate > 1 {
            return "latency.internalServerErrorRate and serviceUnavailableRate add up to more than 1"
        }
        if goAwayShare > 0, goAwayAfter == nil { return "latency.goAway needs after (how long a connection lives first)" }
        return nil
    }
}
