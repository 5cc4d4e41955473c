/// Who sent a request, as Apple tells providers apart: the signing key of its provider token, or
/// the client certificate of its connection. A connection that never authenticated is its own
/// unnamed provider.
public enum ProviderIdentity: Hashable, Sendable, Comparable {
    case key(keyID: String, teamID: String)
    /// The certificate's subject (it names the app: `UID=com.example.app, …`).
    case certificate(subject: String)
    case unauthenticated

    /// Stable and short: `key:ABC123DEFG`, `certificate:<subject>`, `unauthenticated`.
    public var id: String {
        switch self {
        case .key(let keyID, _): "key:\(keyID)"
        case .certificate(let subject): "certificate:\(subject)"
        case .unauthenticated: "unauthenticated"
        }
    }

    /// Whether `filter` names this provider: its id, its key id, its team id, or a part of its
    /// certificate's subject.
    public func matches(_ filter: String) -> Bool {
        if filter == id { return true }
        switch self {
        case .key(let keyID, let teamID): return filter == keyID || filter == teamID
        case .certificate(let subject): return subject.contains(filter)
        case .unauthenticated: return false
        }
    }
}
