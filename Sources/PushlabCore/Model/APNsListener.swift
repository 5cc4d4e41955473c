/// Where one environment's APNs endpoint listens: what the server is told to bind, what it
/// bound (port 0 becomes the port it got), and what `/v1/health` reports.
public struct APNsListener: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var environment: APNsEnvironment
    /// Which of Apple's APIs the listener serves; other paths get 404 `BadPath`.
    public var role: APNsListenerRole
    /// Whether the server fails to start when this listener cannot bind; a listener nobody asked
    /// for by name (a default port another server holds) is left out instead.
    public var required: Bool

    public init(host: String, port: Int, environment: APNsEnvironment, role: APNsListenerRole = .both, required: Bool = true) {
        self.host = host
        self.port = port
        self.environment = environment
        self.role = role
        self.required = required
    }
}
