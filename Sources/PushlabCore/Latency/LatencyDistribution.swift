#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How long something takes, drawn afresh each time: an APNs answer's latency, a connection's
/// start-up cost, a connection's lifetime. Apple publishes none of these; the evidence for the
/// shipped profiles is in `Benchmarks/results/2026-11-29-apns-latency-evidence.md`.
public enum LatencyDistribution: Sendable, Equatable {
    /// Always this many milliseconds.
    case fixed(milliseconds: Double)
    /// Evenly between the two, in milliseconds.
    case uniform(minimum: Double, maximum: Double)
    /// Log-normal with this median and 99th percentile, in milliseconds: a long right tail, as
    /// network and service latencies have.
    case logNormal(p50: Double, p99: Double)

    /// The standard normal distribution's 99th percentile: a log-normal's sigma is
    /// ln(p99 / p50) over it.
    static let z99 = 2.326_347_874_040_841

    /// One draw, in milliseconds (never negative).
    public func sample<Random: RandomNumberGenerator>(using random: inout Random) -> Double {
        switch self {
        case .fixed(let milliseconds):
            return milliseconds
        case .uniform(let minimum, let maximum):
            return minimum == maximum ? minimum : Double.random(in: minimum...maximum, using: &random)
        case .logNormal(let p50, let p99):
            let sigma = log(p99 / p50) / Self.z99
            return p50 * exp(sigma * Self.standardNormal(using: &random))
        }
    }

    /// Box–Muller: one standard normal draw from two uniform ones.
    static func standardNormal<Random: RandomNumberGenerator>(using random: inout Random) -> Double {
        // (0, 1]: log(0) is not a number.
        let u1 = 1 - Double.random(in: 0..<1, using: &random)
        let u2 = Double.random(in: 0..<1, using: &random)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// What makes it unusable, in words for the person who wrote it; nil when fine. `name`
    /// says which setting it is; `longest` (milliseconds) and `spelled` how long it may be.
    public func problem(_ name: String, longest: Double = Self.hour, spelled: String = "an hour") -> String? {
        let limit = "\(Int(longest)) (\(spelled))"
        switch self {
        case .fixed(let milliseconds):
            return milliseconds >= 0 && milliseconds <= longest ? nil : "\(name): ms must be from 0 to \(limit), not \(milliseconds)"
        case .uniform(let minimum, let maximum):
            guard minimum >= 0, maximum <= longest, minimum <= maximum else {
                return "\(name): minMs and maxMs must be from 0 to \(limit), minMs no more than maxMs, not \(minimum) and \(maximum)"
            }
            return nil
        case .logNormal(let p50, let p99):
            guard p50 > 0, p99 >= p50, p99 <= longest else {
                return "\(name): p50Ms must be above 0 and p99Ms at least p50Ms and at most \(limit), not \(p50) and \(p99)"
            }
            return nil
        }
    }

    /// An hour, in milliseconds: as long as an answer may wait (a fault rule's delay too).
    public static let hour: Double = 3_600_000
    /// A day, in milliseconds: as long as a connection may live before its GOAWAY.
    public static let day: Double = 86_400_000
}
