/// One provider connection as the report follows it.
struct ConnectionTally {
    var id: UInt64
    var environment: APNsEnvironment
    var provider: ProviderIdentity?
    var openedAt: EpochMilliseconds
    var closedAt: EpochMilliseconds?
    var goAway: APNsErrorReason?
    var closedForErrors = false
    /// Since the report was last cleared; `earlierRequests` before that.
    var requests = 0
    var earlierRequests = 0
    var peakInFlight = 0
    /// The configured MAX_CONCURRENT_STREAMS (not the 1 announced before a token or after an error).
    var streamLimit: UInt32
    var streamLimitExceeded = 0
    var firstRefusalAt: EpochMilliseconds?
    var statuses: [Int: Int] = [:]

    var reachedStreamLimit: Bool { streamLimit > 0 && peakInFlight >= Int(streamLimit) }

    var summary: ProviderReport.Connection {
        ProviderReport.Connection(
            id: id, provider: provider ?? .unauthenticated, environment: environment, openedAt: openedAt, closedAt: closedAt,
            requests: requests, peakInFlight: peakInFlight, streamLimit: streamLimit, streamLimitExceeded: streamLimitExceeded,
            goAway: goAway, closedForErrors: closedForErrors, statuses: statuses
        )
    }
}
