/// A latency profile on one connection (`APNsPolicy.latency`): its draws, its first answer, and
/// when it is sent GOAWAY.
struct ConnectionLatency {
    let profile: LatencyProfile
    private var random: SplitMix64
    private var answered = false
    /// When the connection is sent GOAWAY `Shutdown` (at its next request); nil never.
    private var goAwayAt: EpochMilliseconds?

    init(profile: LatencyProfile, connection: UInt64, openedAt: EpochMilliseconds) {
        self.profile = profile
        // Each connection its own sequence, the same in every run with the same seed.
        var random = SplitMix64(seed: profile.seed ^ (connection &* 0x9E37_79B9_7F4A_7C15))
        if profile.goAwayShare > 0, let after = profile.goAwayAfter, Double.random(in: 0..<1, using: &random) < profile.goAwayShare {
            goAwayAt = openedAt + EpochMilliseconds(after.sample(using: &random).rounded())
        }
        self.random = random
    }

    /// Apple's own failure for this request, if the draw says so.
    mutating func failure() -> APNsErrorReason? {
        let total = profile.internalServerErrorRate + profile.serviceUnavailableRate
        guard total > 0 else { return nil }
        let draw = Double.random(in: 0..<1, using: &random)
        if draw < profile.internalServerErrorRate { return .internalServerError }
        return draw < total ? .serviceUnavailable : nil
    }

    /// How much later this answer goes out, in milliseconds: its environment's latency, and the
    /// connection's start-up cost on its first answer.
    mutating func delay(for environment: APNsEnvironment) -> Int64 {
        var milliseconds = profile.latency(for: environment)?.sample(using: &random) ?? 0
        if !answered {
            answered = true
            milliseconds += profile.connectionStart?.sample(using: &random) ?? 0
        }
        return Int64(milliseconds.rounded())
    }

    /// GOAWAY `Shutdown` once, at the first request after the connection's lifetime.
    mutating func goAway(now: EpochMilliseconds) -> ConnectionAction? {
        guard let at = goAwayAt, now >= at else { return nil }
        goAwayAt = nil
        return .goAway(.shutdown)
    }
}
