/// Provider-token authentication for one connection (reference 4.2 to 4.5): verification with
/// a per-connection cache, the team and key bound by the first push, expiry, and the 20-minute
/// rule for token updates. Not thread-safe: it lives with its connection on one event loop, and
/// its stored state skips Swift's run-time exclusivity checks (see docs/PERFORMANCE.md).
final class TokenAuthenticator {
    struct Verified {
        let key: SigningKey
        /// `iat` in milliseconds.
        let issuedAt: EpochMilliseconds
    }

    private let world: APNsWorld
    private let policy: APNsPolicy
    /// Tokens whose signature already verified on this connection: later requests cost a lookup.
    @exclusivity(unchecked) private var verifiedTokens: [Substring: Verified] = [:]
    private static let verifiedTokenLimit = 32
    @exclusivity(unchecked) private var keyGeneration: UInt64 = 0
    @exclusivity(unchecked) private(set) var boundTeamID: String?
    /// The world's app generation when the connection was bound: later apps are not its topics.
    @exclusivity(unchecked) private(set) var appGenerationAtBinding: UInt64 = 0
    @exclusivity(unchecked) private var firstKey: SigningKey?
    /// The key of the token that authenticated the latest request.
    @exclusivity(unchecked) private(set) var currentKey: SigningKey?
    @exclusivity(unchecked) private var currentToken: Substring?
    /// The last `authorization` header that passed, when its token was issued and where its key
    /// works: on a busy connection every request repeats it, and then authentication is one
    /// comparison of bytes and two checks on numbers.
    /// Empty when no header has passed (an empty header never does).
    @exclusivity(unchecked) private var lastAuthorization: [UInt8] = []
    @exclusivity(unchecked) private var lastIssuedAt: EpochMilliseconds = 0
    @exclusivity(unchecked) private var lastKeyEnvironments: UInt8 = 0
    @exclusivity(unchecked) private var lastUpdateAt: EpochMilliseconds = 0
    @exclusivity(unchecked) private var updatesInWindow = 0

    init(world: APNsWorld, policy: APNsPolicy) {
        self.world = world
        self.policy = policy
    }

    var hasAuthenticated: Bool { boundTeamID != nil }

    /// Checks the `authorization` header, read in place (a busy connection's repeated header is
    /// compared where the request holds it, and no string is made for it); on success binds the
    /// connection to its key (`currentKey`). Returns why the request is refused, or nil.
    func authenticate(_ authorization: UnsafeRawBufferPointer?, environment: APNsEnvironment, now: EpochMilliseconds) -> APNsErrorReason? {
        guard let authorization else { return .missingProviderToken }
        // A busy connection repeats the header that last passed: with no key changed since, only
        // the rules that depend on the request (environment, time) can answer differently, and
        // nothing is reassigned (each assignment would retain and release shared objects).
        if world.keyGeneration == keyGeneration, lastAuthorization.holdsSameBytes(as: authorization) {
            if lastKeyEnvironments & environment.bit == 0 { return policy.environmentKeyReason }
            return ageProblem(issuedAt: lastIssuedAt, now: now)
        }
        // Until this header passes again, it is not the one that last passed: a key removed since
        // must fail it on every request, not only the first after the removal.
        lastAuthorization.removeAll(keepingCapacity: true)
        let header = String(decoding: authorization, as: UTF8.self)
        guard let bearer = Self.bearerToken(header) else { return .missingProviderToken }
        let verified: Verified
        switch verify(bearer) {
        case .success(let value): verified = value
        case .failure(let reason): return reason
        }
        let key = verified.key
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
        lastAuthorization.append(contentsOf: authorization)
        lastIssuedAt = verified.issuedAt
        lastKeyEnvironments = key.environments.reduce(0) { $0 | $1.bit }
        return nil
    }

    private func ageProblem(issuedAt: EpochMilliseconds, now: EpochMilliseconds) -> APNsErrorReason? {
        let ageMilliseconds = now - issuedAt
        if ageMilliseconds > policy.providerTokenLifetimeSeconds * 1000 { return .expiredProviderToken }
        if -ageMilliseconds > policy.providerTokenFutureSkewSeconds * 1000 { return .invalidProviderToken }
        return nil
    }

    private func verify(_ token: Substring) -> Result<Verified, APNsErrorReason> {
        // A key removed (revoked) since a token verified makes that token invalid.
        let generation = world.keyGeneration
        if generation != keyGeneration {
            verifiedTokens.removeAll(keepingCapacity: true)
            keyGeneration = generation
        }
        if let cached = verifiedTokens[token] { return .success(cached) }
        guard let parsed = try? ProviderToken.parse(token),
              let key = world.key(parsed.keyID),
              key.teamID == parsed.teamID,
              key.verifier.isValidSignature(parsed.signature, for: parsed.signingInput) else {
            return .failure(.invalidProviderToken)
        }
        if verifiedTokens.count >= Self.verifiedTokenLimit { verifiedTokens.removeAll(keepingCapacity: true) }
        let verified = Verified(key: key, issuedAt: parsed.issuedAtMilliseconds)
        verifiedTokens[token] = verified
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

private extension APNsEnvironment {
    /// The environment as one bit of a mask, for the fast path's "where the key works".
    var bit: UInt8 {
        switch self {
        case .development: 1
        case .production: 2
        }
    }
}
