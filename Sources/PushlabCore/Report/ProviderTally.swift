/// What the report has counted for one provider so far. Plain state: `ProviderReportRecorder`
/// guards it, and each rule that needs history across providers (retries, 410s, 429s) is
/// decided there and counted here.
struct ProviderTally {
    static let examplesKept = 3
    /// Providers rarely sign more tokens than this; past it, tokens are no longer told apart.
    static let tokensKept = 10_000
    static let connectionsKept = 100_000

    var requests = 0
    var firstRequest: EpochMilliseconds = .max
    var lastRequest: EpochMilliseconds = .min
    /// Requests and 429 TooManyRequests answers per second (`time / 1000`).
    var perSecond: [Int64: SecondCount] = [:]
    var statuses: [Int: Int] = [:]
    var reasons: [APNsErrorReason: Int] = [:]
    var latency = LatencyHistogram()
    var connectionsOpened = 0
    var retries = ProviderReport.Retries()
    /// Lifetime and requests of each closed connection (the first `connectionsKept`).
    var closedConnections: [(lifetime: Int64, requests: Int)] = []
    var shortConnections = 0
    var connectionsClosedForErrors = 0
    var streamLimitExceeded = 0
    var closedAtStreamLimit = 0
    var pushesAfter410 = 0
    var ignored429 = 0
    var backgroundPriority10 = 0
    var expirationBeyondStorage = 0
    /// Distinct provider tokens by fingerprint, with their `iat`.
    var providerTokens: [UInt64: EpochMilliseconds] = [:]
    var examples: [ProviderFinding.Kind: [String]] = [:]

    struct SecondCount {
        var requests = 0
        var tooManyRequests = 0
    }

    mutating func count(_ exchange: ProviderExchange) {
        requests += 1
        firstRequest = min(firstRequest, exchange.time)
        lastRequest = max(lastRequest, exchange.time)
        let second = exchange.time / 1000
        perSecond[second, default: SecondCount()].requests += 1
        if exchange.reason == .tooManyRequests { perSecond[second, default: SecondCount()].tooManyRequests += 1 }
        statuses[exchange.status, default: 0] += 1
        if let reason = exchange.reason { reasons[reason, default: 0] += 1 }
        if let stamp = exchange.providerToken, providerTokens[stamp.fingerprint] == nil, providerTokens.count < Self.tokensKept {
            providerTokens[stamp.fingerprint] = stamp.issuedAt
        }
        if exchange.pushType == .background && exchange.priority == 10 {
            backgroundPriority10 += 1
            note(.backgroundPriority10, "\(Self.describe(exchange)) at priority 10")
        }
        if let expiration = exchange.expiration, expiration > exchange.time / 1000 + ProviderReportRules.storageSeconds {
            expirationBeyondStorage += 1
            note(.expirationBeyondStorage, "\(Self.describe(exchange)) with apns-expiration \(expiration)")
        }
    }

    mutating func note(_ kind: ProviderFinding.Kind, _ example: @autoclosure () -> String) {
        guard (examples[kind]?.count ?? 0) < Self.examplesKept else { return }
        examples[kind, default: []].append(example())
    }

    /// `token 3f2a…91c0 at 2026-11-29T12:00:00.123Z on connection 7`.
    static func describe(_ exchange: ProviderExchange) -> String {
        let token = exchange.deviceToken.map { "token \(abbreviate($0.hex))" } ?? "a request"
        return "\(token) at \(ISO8601Milliseconds.format(exchange.time)) on connection \(exchange.connectionID)"
    }

    static func abbreviate(_ token: String) -> String {
        token.count <= 12 ? token : "\(token.prefix(4))…\(token.suffix(4))"
    }

    /// Seconds in which 429 TooManyRequests answers came and the next second carried more requests.
    var fasterSecondsAfter429: [Int64] {
        perSecond.compactMap { second, count in
            guard count.tooManyRequests > 0, let next = perSecond[second + 1], next.requests > count.requests else { return nil }
            return second
        }.sorted()
    }

    /// Tokens whose `iat` came less than 20 minutes after the previous token's, in `iat` order.
    var earlyTokenIssues: (count: Int, shortestMilliseconds: Int64?, examples: [String]) {
        let issued = providerTokens.values.sorted()
        var count = 0
        var shortest: Int64?
        var examples: [String] = []
        for (previous, next) in zip(issued, issued.dropFirst()) {
            let gap = next - previous
            shortest = min(shortest ?? gap, gap)
            guard gap < ProviderReportRules.tokenRefreshMilliseconds else { continue }
            count += 1
            if examples.count < Self.examplesKept {
                examples.append("a token issued at \(ISO8601Milliseconds.format(next)), \(Self.seconds(gap)) after the one before")
            }
        }
        return (count, shortest, examples)
    }

    static func seconds(_ milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}

/// The thresholds of the report's rules.
public enum ProviderReportRules {
    /// The same token and payload again within this long is a retry.
    public static let retryWindowMilliseconds: Int64 = 60_000
    /// A push to a token this soon after its 429 ignored the 429.
    public static let backOffAfter429Milliseconds: Int64 = 1_000
    /// Apple: refresh a provider token no more than once every 20 minutes.
    public static let tokenRefreshMilliseconds: Int64 = 20 * 60_000
    /// Apple stores a push for at most 30 days.
    public static let storageSeconds: Int64 = 30 * 86_400
    /// A closed connection that carried at most this many requests was opened for a push or two.
    public static let shortConnectionRequests = 2
    /// It takes this many such connections for the finding.
    public static let shortConnectionsForFinding = 3
}
