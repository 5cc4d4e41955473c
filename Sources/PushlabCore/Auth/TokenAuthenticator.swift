/// Provider-token authentication for one connection (reference 4.2 to 4.5): the team and key
/// bound by the first push, expiry, and the 20-minute rule for token updates. What it may skip
/// for a repeated token lives in the connection's `ConnectionShortcuts`. Not thread-safe: it
/// lives with its connection on one event loop, and its stored state skips Swift's run-time
/// exclusivity checks (see Benchmarks/results/performance-history.md).
final class TokenAuthenticator {
    private let world: APNsWorld
    private let policy: APNsPolicy
    private let shortcuts: ConnectionShortcuts
    @exclusivity(unchecked) private(set) var boundTeamID: String?
    /// The world's app generation when the connection was bound: later apps are not its topics.
    @exclusivity(unchecked) private(set) var appGenerationAtBinding: UInt64 = 0
    @exclusivity(unchecked) private var firstKey: SigningKey?
    /// The key of the token that authenticated the latest request.
    @exclusivity(unchecked) private(set) var currentKey: SigningKey?
    /// The latest token whose signature verified, as the provider report tells tokens apart.
    @exclusivity(unchecked) private(set) var currentStamp: ProviderTokenStamp?
    /// The key of that token: whose request it was, even when it was refused.
    @exclusivity(unchecked) private(set) var verifiedKey: SigningKey?
    /// That key as the provider report names it, made once per key: reading `verifiedKey` for
    /// every request would retain an object every event loop shares.
    @exclusivity(unchecked) private(set) var verifiedProvider: ProviderIdentity?
    @exclusivity(unchecked) private var currentToken: Substring?
    @exclusivity(unchecked) private var lastUpdateAt: EpochMilliseconds = 0
    @exclusivity(unchecked) private var updatesInWindow = 0

    init(world: APNsWorld, policy: APNsPolicy, shortcuts: ConnectionShortcuts) {
        self.world = world
        self.policy = policy
        self.shortcuts = shortcuts
    }

    var hasAuthenticated: Bool { boundTeamID != nil }

    /// Checks the `authorization` header, read in place (a busy connection's repeated header is
    /// compared where the request holds it, and no string is made for it); on success binds the
    /// connection to its key (`currentKey`). Returns why the request is refused, or nil.
    func authenticate(_ authorization: UnsafeRawBufferPointer?, environment: APNsEnvironment, now: EpochMilliseconds) -> APNsErrorReason? {
        guard let authorization else { return .missingProviderToken }
        // A busy connection repeats the header that last passed: only the rules that depend on the
        // request (environment, time) can answer differently, and nothing is reassigned (each
        // assignment would retain and release shared objects).
        if let passed = shortcuts.passed(authorization, world: world) {
            if passed.keyEnvironments & environment.bit == 0 { return policy.environmentKeyReason }
            return ageProblem(issuedAt: passed.issuedAt, now: now)
        }
        shortcuts.forgetPassedHeader()
        let header = String(decoding: authorization, as: UTF8.self)
        guard let bearer = Self.bearerToken(header) else { return .missingProviderToken }
        let verified: ConnectionShortcuts.VerifiedToken
        switch verify(bearer) {
        case .success(let value): verified = value
        case .failure(let reason): return reason
        }
        let key = verified.key
        // Every token signed by a key counts for the report, refused or not.
        currentStamp = ProviderTokenStamp(fingerprint: UInt64(bitPattern: Int64(bearer.hashValue)), issuedAt: verified.issuedAt)
        if verifiedKey !== key { verifiedProvider = .key(keyID: key.keyID, teamID: key.teamID) }
        verifiedKey = key
        if key.isRevoked { return .forbidden }
        if !key.environments.contains(environment) { return policy.environmentKeyReason }
        if let boundTeamID, boundTeamID != key.teamID { return .invalidProviderToken }
        if let firstKey, !firstKey.isRelated(to: key) { return .unrelatedKeyIdInToken }
        if let problem = ageProblem(issuedAt: verified.issuedAt, now: now) { return problem }
        if let currentToken, currentToken != bearer {
            if now - lastUpdateAt < policy.providerTokenUpdateWindowSeconds * 1000 {
                guard updatesInWindow < policy.providerTokenUpdateAllowance else { return .tooManyProviderTokenUpdates }
                updatesInWindow += 1
            } else {
                lastUpdateAt = now
                updatesInWindow = 0
            }
            self.currentToken = bearer
        } else if currentToken == nil {
            currentToken = bearer
            lastUpdateAt = now
        }
        if boundTeamID == nil { appGenerationAtBinding = world.appGeneration }
        boundTeamID = key.teamID
        if firstKey == nil { firstKey = key }
        currentKey = key
        shortcuts.rememberPassed(authorization, .init(issuedAt: verified.issuedAt, keyEnvironments: key.environments.reduce(0) { $0 | $1.bit }))
        return nil
    }

    private func ageProblem(issuedAt: EpochMilliseconds, now: EpochMilliseconds) -> APNsErrorReason? {
        let ageMilliseconds = now - issuedAt
        if ageMilliseconds > policy.providerTokenLifetimeSeconds * 1000 { return .expiredProviderToken }
        if -ageMilliseconds > policy.providerTokenFutureSkewSeconds * 1000 { return .invalidProviderToken }
        return nil
    }

    private func verify(_ token: Substring) -> Result<ConnectionShortcuts.VerifiedToken, APNsErrorReason> {
        if let cached = shortcuts.verifiedToken(token, world: world) { return .success(cached) }
        guard let parsed = try? ProviderToken.parse(token),
              let key = world.key(parsed.keyID),
              key.teamID == parsed.teamID,
              key.verifier.isValidSignature(parsed.signature, for: parsed.signingInput) else {
            return .failure(.invalidProviderToken)
        }
        let verified = ConnectionShortcuts.VerifiedToken(key: key, issuedAt: parsed.issuedAtMilliseconds)
        shortcuts.rememberVerified(token, verified)
        return .success(verified)
    }

    /// The token after `bearer ` (case-insensitive, surrounding spaces and tabs trimmed: HTTP's
    /// optional whitespace); nil when absent or empty.
    static func bearerToken(_ header: String) -> Substring? {
        let utf8 = header.utf8
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = utf8.startIndex
        while start < utf8.endIndex, isBlank(utf8[start]) { start = utf8.index(after: start) }
        var end = utf8.endIndex
        while end > start, isBlank(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        // "bearer" in any case, then at least one space or tab.
        var cursor = start
        for expected in "bearer".utf8 {
            guard cursor < end, utf8[cursor] | 0x20 == expected else { return nil }
            cursor = utf8.index(after: cursor)
        }
        guard cursor < end, isBlank(utf8[cursor]) else { return nil }
        while cursor < end, isBlank(utf8[cursor]) { cursor = utf8.index(after: cursor) }
        guard cursor < end else { return nil }
        return header[cursor..<end]
    }
}
