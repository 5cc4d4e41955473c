import PushlabCore

/// `policy.latency` in a scenario (docs/SCENARIOS.md, "Latency and Apple's own failures"):
///
/// ```yaml
/// latency:
///   both: {distribution: logNormal, p50Ms: 35, p99Ms: 250}
///   connectionStart: {distribution: uniform, minMs: 60, maxMs: 200}
///   internalServerErrorRate: 0.0001
///   serviceUnavailableRate: 0.0001
///   goAway: {share: 0.01, after: {distribution: fixed, ms: 600000}}
///   seed: 7
/// ```
public struct LatencyFile: Decodable, Sendable {
    public var development: DistributionFile?
    public var production: DistributionFile?
    /// Both environments, unless one is given on its own.
    public var both: DistributionFile?
    public var connectionStart: DistributionFile?
    public var internalServerErrorRate: Double?
    public var serviceUnavailableRate: Double?
    public var goAway: GoAway?
    public var seed: UInt64?

    public struct GoAway: Decodable, Sendable {
        public var share: Double
        public var after: DistributionFile
    }

    /// What makes it unusable, named as the file spells it (`latency.both`, not the environment
    /// it fills in); nil when fine.
    public var problem: String? {
        let given: [(String, DistributionFile?)] = [
            ("latency.development", development), ("latency.production", production), ("latency.both", both),
            ("latency.connectionStart", connectionStart),
        ]
        for (name, file) in given {
            if let problem = file?.distribution.problem(name) { return problem }
        }
        return profile.problem
    }

    public var profile: LatencyProfile {
        LatencyProfile(
            development: (development ?? both)?.distribution, production: (production ?? both)?.distribution,
            connectionStart: connectionStart?.distribution, internalServerErrorRate: internalServerErrorRate ?? 0,
            serviceUnavailableRate: serviceUnavailableRate ?? 0, goAwayShare: goAway?.share ?? 0, goAwayAfter: goAway?.after.distribution,
            seed: seed ?? LatencyProfile().seed
        )
    }
}

/// One `LatencyDistribution`: `{distribution: fixed, ms}`, `{distribution: uniform, minMs, maxMs}`
/// or `{distribution: logNormal, p50Ms, p99Ms}`, in milliseconds.
public struct DistributionFile: Decodable, Sendable {
    public let distribution: LatencyDistribution

    private enum CodingKeys: String, CodingKey {
        case distribution, ms, minMs, maxMs, p50Ms, p99Ms
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .distribution)
        func number(_ key: CodingKeys) throws -> Double {
            guard let value = try container.decodeIfPresent(Double.self, forKey: key) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "a \(kind) distribution needs \(key.stringValue)")
            }
            return value
        }
        switch kind {
        case "fixed": distribution = .fixed(milliseconds: try number(.ms))
        case "uniform": distribution = .uniform(minimum: try number(.minMs), maximum: try number(.maxMs))
        case "logNormal": distribution = .logNormal(p50: try number(.p50Ms), p99: try number(.p99Ms))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .distribution, in: container, debugDescription: "distribution must be fixed, uniform or logNormal, not \(kind)"
            )
        }
    }
}
