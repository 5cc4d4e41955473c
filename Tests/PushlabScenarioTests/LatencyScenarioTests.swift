import PushlabCore
import PushlabScenario
import Testing

@Suite("Scenario files: a latency profile")
struct LatencyScenarioTests {
    private let source = "/tmp/latency.yaml"

    @Test func everyFieldIsRead() throws {
        let scenario = try ScenarioParsing.parse("""
            policy:
              latency:
                both: {distribution: logNormal, p50Ms: 35, p99Ms: 250}
                production: {distribution: fixed, ms: 20}
                connectionStart: {distribution: uniform, minMs: 60, maxMs: 200}
                internalServerErrorRate: 0.001
                serviceUnavailableRate: 0.002
                goAway: {share: 0.05, after: {distribution: fixed, ms: 600000}}
                seed: 9
            """, source: source)
        let profile = try #require(scenario.policy.latency)
        #expect(profile == LatencyProfile(
            development: .logNormal(p50: 35, p99: 250), production: .fixed(milliseconds: 20), connectionStart: .uniform(minimum: 60, maximum: 200),
            internalServerErrorRate: 0.001, serviceUnavailableRate: 0.002, goAwayShare: 0.05, goAwayAfter: .fixed(milliseconds: 600_000), seed: 9
        ))
        #expect(try ScenarioParsing.parse("name: none", source: source).policy.latency == nil, "off unless a scenario asks")
    }

    @Test func mistakesAreNamed() {
        #expect(ScenarioParsing.error("policy: {latency: {both: {distribution: gaussian, ms: 3}}}", source: source).contains("distribution must be fixed, uniform or logNormal, not gaussian"))
        #expect(ScenarioParsing.error("policy: {latency: {both: {distribution: uniform, minMs: 3}}}", source: source).contains("a uniform distribution needs maxMs"))
        #expect(ScenarioParsing.error("policy: {latency: {both: {distribution: fixed, ms: 3, p50: 4}}}", source: source).contains("policy.latency.both.p50"))
        #expect(ScenarioParsing.error("policy: {latency: {serviceUnavailableRate: 2}}", source: source).contains("latency.serviceUnavailableRate must be from 0 to 1"))
        #expect(ScenarioParsing.error("policy: {latency: {goAway: {share: 0.5, after: {distribution: logNormal, p50Ms: 0, p99Ms: 1}}}}", source: source).contains("latency.goAway.after"))
    }
}
