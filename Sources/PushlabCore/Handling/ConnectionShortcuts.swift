/// What a connection remembers so that a request like the last one costs a comparison instead of
/// a lookup: the `:authority`'s environment, the parsed `apns-topic`, the app it names, the rate
/// limiter, the provider tokens that verified and the `authorization` header that last passed.
///
/// Every shortcut here owns its invalidation, so the rules that use it read as rules:
/// - authority and topic are pure functions of their bytes: they never go stale;
/// - the app goes stale when the world's apps change (`APNsWorld.appsVersion`);
/// - the rate limiter when the service replaces it (`rateLimiterGeneration`);
/// - verified tokens and the passed header when a key is added or removed (`keyGeneration`):
///   a removed key must fail its tokens on every request, not only the first.
///
/// Not thread-safe: one per connection, on its event loop, never entered re-entrantly; its
/// stored state skips Swift's run-time exclusivity checks (Benchmarks/results/performance-history.md).
final class ConnectionShortcuts {
    // MARK: Authority and topic

    @exclusivity(unchecked) private var lastAuthority: String?
    @exclusivity(unchecked) private var lastAuthorityEnvironment = APNsEnvironment.development
    @exclusivity(unchecked) private var lastTopic: APNsTopic?
    /// `lastTopic` as sent, so a repeated `apns-topic` is recognised in place.
    @exclusivity(unchecked) private var lastTopicBytes: [UInt8] = []

    /// The environment `:authority` names (or the listener's): decided once per distinct value.
    func environment(for request: APNsRequest, on info: ConnectionInfo) -> APNsEnvironment {
        guard let authority = request.authority else { return info.environment }
        if authority != lastAuthority {
            lastAuthority = authority
            lastAuthorityEnvironment = info.environment(for: request)
        }
        return lastAuthorityEnvironment
    }

    /// The topic split into bundle id and suffix, once per distinct value.
    func parsedTopic(_ value: String) -> APNsTopic {
        if let lastTopic, lastTopic.value == value { return lastTopic }
        let topic = APNsTopic(value)
        lastTopic = topic
        lastTopicBytes = Array(value.utf8)
        return topic
    }

    /// The last topic parsed when `header` is exactly its bytes.
    func repeatedTopic(_ header: UnsafeRawBufferPointer?) -> APNsTopic? {
        guard let header, lastTopicBytes.holdsSameBytes(as: header) else { return nil }
        return lastTopic
    }

    // MARK: App

    @exclusivity(unchecked) private var lastApp: AppRecord?
    @exclusivity(unchecked) private var lastAppVersion: UInt64 = 0

    /// The world's record of `bundleID`, looked up again only when it names another app or the
    /// world's apps changed; read in place (a copy would retain strings every connection shares).
    func withApp<Result>(_ bundleID: String, in world: APNsWorld, _ body: (AppRecord?) -> Result) -> Result {
        let version = world.appsVersion
        if lastAppVersion != version || lastApp?.bundleID != bundleID {
            lastApp = world.app(bundleID)
            lastAppVersion = version
        }
        return body(lastApp)
    }

    // MARK: Rate limiter

    @exclusivity(unchecked) private(set) var rateLimiter: DeviceTokenRateLimiter?
    @exclusivity(unchecked) private(set) var rateLimit: APNsPolicy.RateLimit?
    @exclusivity(unchecked) private var rateLimiterGeneration = UInt64.max

    /// Takes the service's rate limiter and its limit when the service replaced them: no lock
    /// per request.
    func refreshRateLimiter(from service: APNsProviderService) {
        let generation = service.rateLimiterGeneration
        guard generation != rateLimiterGeneration else { return }
        rateLimiter = service.deviceTokenRateLimiter
        rateLimit = rateLimiter?.limit
        rateLimiterGeneration = generation
    }

    // MARK: Provider tokens

    /// A token whose signature verified on this connection, and what it said.
    struct VerifiedToken {
        let key: SigningKey
        /// `iat` in milliseconds.
        let issuedAt: EpochMilliseconds
    }

    /// The `authorization` header that last passed, what its token said and where its key works:
    /// a busy connection repeats it, and then authentication is one comparison of bytes.
    struct PassedHeader {
        let issuedAt: EpochMilliseconds
        /// The key's environments as a mask (`APNsEnvironment.bit`).
        let keyEnvironments: UInt8
    }

    @exclusivity(unchecked) private var verifiedTokens: [Substring: VerifiedToken] = [:]
    private static let verifiedTokenLimit = 32
    @exclusivity(unchecked) private var keyGeneration: UInt64 = 0
    /// Empty when no header has passed (an empty header never does).
    @exclusivity(unchecked) private var passedHeaderBytes: [UInt8] = []
    @exclusivity(unchecked) private var passedHeader = PassedHeader(issuedAt: 0, keyEnvironments: 0)

    /// What the last passing header said, when `authorization` is exactly it and no key changed since.
    func passed(_ authorization: UnsafeRawBufferPointer, world: APNsWorld) -> PassedHeader? {
        guard world.keyGeneration == keyGeneration, passedHeaderBytes.holdsSameBytes(as: authorization) else { return nil }
        return passedHeader
    }

    /// Until a header passes again, none has: a key removed since must fail it on every request.
    func forgetPassedHeader() {
        passedHeaderBytes.removeAll(keepingCapacity: true)
    }

    func rememberPassed(_ authorization: UnsafeRawBufferPointer, _ header: PassedHeader) {
        passedHeaderBytes.append(contentsOf: authorization)
        passedHeader = header
    }

    /// A token that verified on this connection since the world's keys last changed.
    func verifiedToken(_ token: Substring, world: APNsWorld) -> VerifiedToken? {
        let generation = world.keyGeneration
        if generation != keyGeneration {
            verifiedTokens.removeAll(keepingCapacity: true)
            keyGeneration = generation
        }
        return verifiedTokens[token]
    }

    func rememberVerified(_ token: Substring, _ verified: VerifiedToken) {
        if verifiedTokens.count >= Self.verifiedTokenLimit { verifiedTokens.removeAll(keepingCapacity: true) }
        verifiedTokens[token] = verified
    }
}

extension APNsEnvironment {
    /// The environment as one bit of a mask, for "where the key works".
    var bit: UInt8 {
        switch self {
        case .development: 1
        case .production: 2
        }
    }
}
