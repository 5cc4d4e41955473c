@testable import PushlabCore
import Testing

/// The latency distributions of a profile (`LatencyDistribution`), sampled with a fixed seed:
/// the percentiles land where they were asked for.
@Suite struct LatencyDistributionTests {
    static func samples(_ distribution: LatencyDistribution, count: Int = 100_000, seed: UInt64 = 7) -> [Double] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in distribution.sample(using: &random) }.sorted()
    }

    static func percentile(_ sorted: [Double], _ share: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * share))]
    }

    @Test func aFixedLatencyIsAlwaysItself() {
        #expect(Self.samples(.fixed(milliseconds: 40), count: 100).allSatisfy { $0 == 40 })
    }

    @Test func aUniformLatencyStaysInItsRangeAndCentresOnItsMiddle() {
        let sorted = Self.samples(.uniform(minimum: 20, maximum: 60))
        #expect(sorted.first! >= 20 && sorted.last! <= 60)
        #expect(abs(Self.percentile(sorted, 0.5) - 40) < 0.5)
        #expect(abs(Self.percentile(sorted, 0.9) - 56) < 0.5)
    }

    @Test(arguments: [(35.0, 250.0), (10.0, 10.5), (200.0, 3_000.0)])
    func aLogNormalHasTheMedianAndTailItWasGiven(p50: Double, p99: Double) {
        let sorted = Self.samples(.logNormal(p50: p50, p99: p99))
        #expect(abs(Self.percentile(sorted, 0.5) / p50 - 1) < 0.03, "p50")
        #expect(abs(Self.percentile(sorted, 0.99) / p99 - 1) < 0.06, "p99")
        #expect(sorted.first! > 0)
    }

    @Test func theSameSeedDrawsTheSameSequence() {
        let distribution = LatencyDistribution.logNormal(p50: 35, p99: 250)
        #expect(Self.samples(distribution, count: 50, seed: 3) == Self.samples(distribution, count: 50, seed: 3))
        #expect(Self.samples(distribution, count: 50, seed: 3) != Self.samples(distribution, count: 50, seed: 4))
    }

    @Test func unusableDistributionsSayWhy() {
        #expect(LatencyDistribution.fixed(milliseconds: -1).problem("x")?.contains("x: ms must be from 0") == true)
        #expect(LatencyDistribution.uniform(minimum: 50, maximum: 10).problem("x")?.contains("minMs no more than maxMs") == true)
        #expect(LatencyDistribution.logNormal(p50: 0, p99: 10).problem("x")?.contains("p50Ms must be above 0") == true)
        #expect(LatencyDistribution.logNormal(p50: 100, p99: 10).problem("x") != nil)
        #expect(LatencyDistribution.logNormal(p50: 35, p99: 250).problem("x") == nil)
        #expect(LatencyDistribution.fixed(milliseconds: 7_200_000).problem("x") != nil, "an answer waits an hour at most")
        #expect(LatencyProfile(goAwayShare: 0.1, goAwayAfter: .fixed(milliseconds: 7_200_000)).problem == nil, "a connection may live a day")
        var profile = LatencyProfile(internalServerErrorRate: 0.7, serviceUnavailableRate: 0.6)
        #expect(profile.problem?.contains("add up to more than 1") == true)
        profile = LatencyProfile(goAwayShare: 0.1)
        #expect(profile.problem?.contains("goAway needs after") == true)
        var policy = APNsPolicy()
        policy.latency = LatencyProfile(development: .fixed(milliseconds: 4_000_000))
        #expect(policy.problem?.contains("latency.development") == true)
    }
}
