@testable import PushlabCore
import Testing

/// A latency profile on a connection (`APNsPolicy.latency`): answers wait as long as the
/// profile draws, the first one longer; Apple's own 500s and 503s come at their rates without
/// counting against the provider; and a share of connections get GOAWAY after their lifetime.
@Suite struct LatencyProfileTests {
    static func harness(_ profile: LatencyProfile, environment: APNsEnvironment = .development, tweak: (inout APNsPolicy) -> Void = { _ in }) throws -> Harness {
        var policy = APNsPolicy()
        policy.latency = profile
        tweak(&policy)
        return try Harness(.token, policy: policy, environment: environment)
    }

    @Test func answersWaitTheirEnvironmentsLatencyAndTheFirstItsConnectionsStart() throws {
        let harness = try Self.harness(LatencyProfile(development: .fixed(milliseconds: 40), connectionStart: .fixed(milliseconds: 100)))
        let first = harness.send()
        let second = harness.send()
        let refused = harness.send(topic: "com.example.nobody")
        #expect(first.response?.status == 200 && first.delayMilliseconds == 140)
        #expect(second.delayMilliseconds == 40 && refused.delayMilliseconds == 40, "every answer, refusals too")
        #expect(harness.log.entries().count == 3, "recorded as they are decided")
    }

    @Test func anEnvironmentWithoutLatencyAnswersAtOnce() throws {
        let harness = try Self.harness(LatencyProfile(development: .fixed(milliseconds: 40)), environment: .production)
        #expect(harness.send(token: TestWorld.prodToken).delayMilliseconds == 0)
    }

    @Test func applesOwnFailuresComeAtTheirRateAndCostTheProviderNothing() throws {
        let harness = try Self.harness(LatencyProfile(internalServerErrorRate: 0.2, serviceUnavailableRate: 0.1, seed: 11)) { policy in
            policy.errorBudgetPerConnection = 5
            policy.deviceTokenRateLimit = nil
        }
        var reasons: [APNsErrorReason?] = []
        var actions: [ConnectionAction] = []
        for _ in 0..<3_000 {
            let outcome = harness.send()
            reasons.append(harness.reason(outcome))
            actions += outcome.actions
        }
        let failedInside = reasons.filter { $0 == .internalServerError }.count
        let unavailable = reasons.filter { $0 == .serviceUnavailable }.count
        #expect(abs(Double(failedInside) / 3_000 - 0.2) < 0.03 && abs(Double(unavailable) / 3_000 - 0.1) < 0.03, "\(failedInside), \(unavailable)")
        #expect(failedInside + unavailable + reasons.filter { $0 == nil }.count == 3_000, "the rest are answered as ever")
        #expect(!actions.contains { if case .goAway = $0 { true } else { false } }, "no GOAWAY for errors that are Apple's")
        #expect(!actions.contains(.setMaxConcurrentStreams(1)), "and no throttled streams")
    }

    @Test func theSameSeedFailsTheSameRequests() throws {
        func run() throws -> [APNsErrorReason?] {
            let harness = try Self.harness(LatencyProfile(serviceUnavailableRate: 0.3, seed: 5)) { $0.deviceTokenRateLimit = nil }
            return (0..<200).map { _ in harness.reason(harness.send()) }
        }
        #expect(try run() == run())
    }

    @Test func aShareOfConnectionsIsSentGoAwayOnceItsLifetimeIsOver() throws {
        let harness = try Self.harness(LatencyProfile(goAwayShare: 1, goAwayAfter: .fixed(milliseconds: 60_000)))
        #expect(!harness.send().actions.contains(.goAway(.shutdown)), "young")
        harness.clock.advance(milliseconds: 60_000)
        #expect(harness.send().actions.contains(.goAway(.shutdown)))
        #expect(!harness.send().actions.contains(.goAway(.shutdown)), "once")
        let never = try Self.harness(LatencyProfile(goAwayShare: 0, goAwayAfter: .fixed(milliseconds: 0)))
        never.clock.advance(milliseconds: 60_000)
        #expect(!never.send().actions.contains(.goAway(.shutdown)))
    }

    @Test func withoutAProfileNothingWaits() throws {
        let harness = try Harness(.token)
        #expect(harness.send().delayMilliseconds == 0)
    }
}
