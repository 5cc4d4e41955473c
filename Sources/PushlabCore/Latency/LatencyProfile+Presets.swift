/// The two profiles Pushlab ships, by name (`pushlab serve --latency`, `PUT /v1/latency`), the
/// same as `scenarios/load/apple-like.yaml` and `bad-day.yaml` set; docs/SCENARIOS.md gives
/// each figure's evidence.
extension LatencyProfile {
    /// Median 35 ms with a long tail, a first answer 60–200 ms slower, Apple's rare 500s and
    /// 503s, and GOAWAY `Shutdown` for one connection in a hundred after 30–90 minutes.
    public static let appleLike = LatencyProfile(
        development: .logNormal(p50: 35, p99: 250), production: .logNormal(p50: 35, p99: 250),
        connectionStart: .uniform(minimum: 60, maximum: 200), internalServerErrorRate: 0.0001, serviceUnavailableRate: 0.0001,
        goAwayShare: 0.01, goAwayAfter: .uniform(minimum: 1_800_000, maximum: 5_400_000)
    )

    /// Slow answers (median 150 ms, p99 2 s), one request in a hundred failed on Apple's side,
    /// and a third of the connections told to go within minutes.
    public static let badDay = LatencyProfile(
        development: .logNormal(p50: 150, p99: 2000), production: .logNormal(p50: 150, p99: 2000),
        connectionStart: .uniform(minimum: 200, maximum: 1000), internalServerErrorRate: 0.005, serviceUnavailableRate: 0.005,
        goAwayShare: 0.33, goAwayAfter: .uniform(minimum: 60_000, maximum: 600_000)
    )

    public static let presets: [(name: String, profile: LatencyProfile)] = [("apple-like", appleLike), ("bad-day", badDay)]

    public static func preset(named name: String) -> LatencyProfile? {
        presets.first { $0.name == name }?.profile
    }
}
