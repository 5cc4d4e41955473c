/// What Pushlab saw each provider do, and what of it Apple warns against: the report
/// `GET /v1/report`, `pushlab report` and the dashboard show.
public struct ProviderReport: Sendable, Equatable {
    public var recording: Bool
    /// When recording started (or the report was last cleared); nil if it never did.
    public var since: EpochMilliseconds?
    public var generatedAt: EpochMilliseconds
    /// Busiest first.
    public var providers: [Provider]
    /// Open connections first, then the most recently closed; at most `connectionsShown`.
    public var connections: [Connection]
    /// How many connections the report followed in all (more than `connections` may show).
    public var connectionsFollowed: Int

    public static let connectionsShown = 100

    public struct Provider: Sendable, Equatable {
        public var provider: ProviderIdentity
        public var requests: Int
        public var firstRequest: EpochMilliseconds?
        public var lastRequest: EpochMilliseconds?
        /// Requests a second over the provider's active span, and in its busiest second.
        public var meanRate: Double
        public var peakRate: Int
        /// Requests in flight on average (Little's law: rate × mean answer time), and the most
        /// one connection held at once.
        public var meanConcurrency: Double?
        public var peakConcurrency: Int
        public var streamLimit: UInt32?
        public var connectionsOpened: Int
        public var connectionsOpen: Int
        public var requestsPerConnection: Summary?
        public var connectionLifetimeMilliseconds: Summary?
        public var latency: LatencyHistogram
        public var statuses: [Int: Int]
        public var reasons: [String: Int]
        public var retries: Retries
        public var pushesAfter410: Int
        public var providerTokens: ProviderTokens
        public var tooManyRequests: TooManyRequests
        public var findings: [ProviderFinding]

        /// The percentiles of `latency`, in milliseconds.
        public func latencyMilliseconds(_ fraction: Double) -> Double? { latency.percentile(fraction).map { $0 / 1000 } }
    }

    public struct Summary: Sendable, Equatable {
        public var min: Double
        public var median: Double
        public var max: Double

        init?(_ values: [Double]) {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            min = sorted[0]
            median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            max = sorted[sorted.count - 1]
        }
    }

    /// The same token and payload sent again within `ProviderReportRules.retryWindowMilliseconds`,
    /// by what the earlier one was answered.
    public struct Retries: Sendable, Equatable {
        public var afterSuccess = 0
        /// After a 400, 404, 405 or 413: the same request gets the same answer.
        public var afterRefusal = 0
        /// After a 403, which a new provider token may cure.
        public var afterAuthenticationFailure = 0
        public var after410 = 0
        public var after429 = 0
        public var afterServerError = 0

        public var total: Int { afterSuccess + afterRefusal + afterAuthenticationFailure + after410 + after429 + afterServerError }

        mutating func count(after status: Int) {
            switch status {
            case 200..<300: afterSuccess += 1
            case 403: afterAuthenticationFailure += 1
            case 410: after410 += 1
            case 429: after429 += 1
            case 500...: afterServerError += 1
            default: afterRefusal += 1
            }
        }
    }

    public struct ProviderTokens: Sendable, Equatable {
        public var distinct: Int
        /// Tokens issued less than 20 minutes after the one before.
        public var issuedTooSoon: Int
        public var shortestIntervalMilliseconds: Int64?
    }

    public struct TooManyRequests: Sendable, Equatable {
        public var answers: Int
        /// Pushes to a token less than `ProviderReportRules.backOffAfter429Milliseconds` after its 429.
        public var pushesTooSoon: Int
        /// Seconds with 429s whose next second carried more requests.
        public var fasterSeconds: Int
    }

    public struct Connection: Sendable, Equatable {
        public var id: UInt64
        public var provider: ProviderIdentity
        public var environment: APNsEnvironment
        public var openedAt: EpochMilliseconds
        public var closedAt: EpochMilliseconds?
        public var requests: Int
        public var peakInFlight: Int
        public var streamLimit: UInt32
        public var streamLimitExceeded: Int
        /// The GOAWAY Pushlab sent, if it did.
        public var goAway: APNsErrorReason?
        public var closedForErrors: Bool
        public var statuses: [Int: Int]

        public func lifetimeMilliseconds(now: EpochMilliseconds) -> Int64 { (closedAt ?? now) - openedAt }
    }

    /// The provider `filter` names (`ProviderIdentity.matches`), and its connections; everything
    /// when nil.
    public func narrowed(to filter: String?) -> ProviderReport {
        guard let filter else { return self }
        var narrowed = self
        narrowed.providers = providers.filter { $0.provider.matches(filter) }
        narrowed.connections = connections.filter { $0.provider.matches(filter) }
        return narrowed
    }

    /// Every finding of every provider shown.
    public var findings: [ProviderFinding] { providers.flatMap(\.findings) }
}
