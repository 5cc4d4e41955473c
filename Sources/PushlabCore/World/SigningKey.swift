/// Verifies ES256 signatures. The core never sees OpenSSL: the adapter that loads a key
/// supplies the verifier.
public protocol SignatureVerifier: Sendable {
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool
}

/// A provider-token signing key registered with the team (reference 4.5). A class: connections
/// hold on to the key of their tokens, and a reference is cheaper to pass around than its fields.
public final class SigningKey: Sendable {
    public enum Scope: Sendable, Equatable {
        /// Works for every topic of the team.
        case team
        /// Works for these bundle ids only.
        case topics(Set<String>)
    }

    public let keyID: String
    public let teamID: String
    public let scope: Scope
    /// Environments the key may be used in (team-scoped keys may be limited; older keys work in both).
    public let environments: Set<APNsEnvironment>
    /// A topic-specific key may have one related key whose tokens may share its connections.
    public let relatedKeyID: String?
    /// A revoked key's tokens are refused with `Forbidden` ("a revoked key", reference section 2).
    public let isRevoked: Bool
    public let verifier: any SignatureVerifier

    public init(
        keyID: String, teamID: String, scope: Scope = .team,
        environments: Set<APNsEnvironment> = [.development, .production],
        relatedKeyID: String? = nil, isRevoked: Bool = false, verifier: any SignatureVerifier
    ) {
        self.isRevoked = isRevoked
        self.keyID = keyID
        self.teamID = teamID
        self.scope = scope
        self.environments = environments
        self.relatedKeyID = relatedKeyID
        self.verifier = verifier
    }

    public func mayPush(toBundle bundleID: String) -> Bool {
        switch scope {
        case .team: true
        case .topics(let bundles): bundles.contains(bundleID)
        }
    }

    /// Whether tokens of `other` may follow tokens of `self` on one connection (reference 4.5).
    public func isRelated(to other: SigningKey) -> Bool {
        if keyID == other.keyID { return true }
        switch (scope, other.scope) {
        case (.team, .team): return environments == other.environments
        case (.topics, .topics): return relatedKeyID == other.keyID || other.relatedKeyID == keyID
        default: return false
        }
    }
}
