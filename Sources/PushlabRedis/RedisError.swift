/// What went wrong talking to Redis, with a message a user can act on.
public struct RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Redis answered the command with an error (`-ERR …`, `-WRONGTYPE …`).
        case server
        /// No connection could be made, or it was lost with the command unanswered.
        case connection
        /// Redis sent something this client cannot read, or a cluster answer it did not expect.
        case protocolError
        /// The cluster kept redirecting, or had no master for a slot, past the retries allowed.
        case cluster
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The first word of a server error (`MOVED`, `ASK`, `TRYAGAIN`, `CLUSTERDOWN`, `NOSCRIPT`, …).
    public var code: String? {
        guard kind == .server else { return nil }
        return message.split(separator: " ", maxSplits: 1).first.map(String.init)
    }

    public var description: String {
        switch kind {
        case .server: "Redis answered: \(message)"
        case .connection: "Redis connection: \(message)"
        case .protocolError: "Redis protocol: \(message)"
        case .cluster: "Redis Cluster: \(message)"
        }
    }
}
