/// A change to a cluster's world, as a node's control API received it: every node applies it
/// to its own copy of the world by replaying the request against its own routes, in the order
/// the engine gave the changes. Which requests are changes is `ClusterChange.kind(of:path:)`.
public struct ClusterChange: Sendable, Equatable {
    /// The engine's id, ordered as the changes are.
    public var id: String
    public var method: String
    /// With its query.
    public var path: String
    public var body: [UInt8]
    public var kind: Kind

    public init(id: String, method: String, path: String, body: [UInt8], kind: Kind) {
        self.id = id
        self.method = method
        self.path = path
        self.body = body
        self.kind = kind
    }

    public enum Kind: String, Sendable {
        /// Applied to the world as it is.
        case change
        /// `POST /v1/reset`: back to the scenario, a new world.
        case reset
        /// `POST /v1/scenario`: another scenario, a new world.
        case load
        /// What one node made (tokens its phones made, channels its channel API created): no
        /// request, the other nodes' worlds learn them (`ClusterRouting.apply`).
        case published
    }

    /// Whether a request changes what every node must agree on (the world's keys and apps, the
    /// clock, the fault rules, the stand-in's rules, a reset or a scenario load), and how. Nil
    /// for a read, and for a request about one phone (`/v1/devices…`, adding one among them):
    /// only the phone's node has it, and the tokens it makes or retires reach the others as
    /// published changes.
    public static func kind(of method: String, path: String) -> Kind? {
        let route = path.split(separator: "?", maxSplits: 1).first ?? ""
        let parts = route.split(separator: "/")
        guard parts.first == "v1" else { return nil }
        // The route's shape: its ids (every second part after the collection's name) as "*".
        let names = parts.dropFirst()
        let shape = names.enumerated().map { $0.offset % 2 == 1 && names.first != "stand-in" ? "*" : String($0.element) }.joined(separator: "/")
        switch (method, shape) {
        case ("POST", "reset"): return .reset
        case ("POST", "scenario"): return .load
        case ("POST", "keys"), ("DELETE", "keys/*"), ("POST", "apps"),
             ("POST", "clock"),
             ("POST", "faults"), ("DELETE", "faults"), ("DELETE", "faults/*"),
             ("PUT", "stand-in/rules"), ("DELETE", "stand-in/requests"),
             ("PUT", "report"), ("DELETE", "report"), ("PUT", "latency"), ("DELETE", "latency"):
            return .change
        default:
            return nil
        }
    }
}
