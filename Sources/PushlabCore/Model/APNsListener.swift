/// Where one environment's APNs endpoint listens: what the server is told to bind, what it
/// bound (port 0 becomes the port it got), and what `/v1/health` reports.
public struct APNsListener: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var environment: APNsEnvironment

    public init(host: String, port: Int, environment: APNsEnvironment) {
        self.host = host
        self.port = port
        self.environment = environment
    }
}
