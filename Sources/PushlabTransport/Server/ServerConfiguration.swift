import NIOCore
import PushlabCore

/// Everything `PushlabServer` needs to listen: addresses, certificates and HTTP/2 limits.
public struct ServerConfiguration: Sendable {
    /// A port of 0 picks a free one (see `PushlabServer.boundListeners`).
    public typealias Listener = APNsListener

    public var listeners: [Listener]
    public var certificateChainFile: String
    public var privateKeyFile: String
    /// CA bundle that client certificates are verified against; nil trusts none.
    public var clientCertificateAuthoritiesFile: String?
    public var limits: HTTP2Limits
    /// Event loop threads; defaults to one per core.
    public var threads: Int
    /// How long a graceful shutdown waits for in-flight streams before closing anyway.
    public var shutdownGracePeriod: Duration
    /// A connection that has not finished its TLS handshake by then is closed.
    public var tlsHandshakeTimeout: Duration = .seconds(10)

    public init(
        listeners: [Listener] = ServerConfiguration.defaultListeners,
        certificateChainFile: String,
        privateKeyFile: String,
        clientCertificateAuthoritiesFile: String? = nil,
        limits: HTTP2Limits = HTTP2Limits(),
        threads: Int = System.coreCount,
        shutdownGracePeriod: Duration = .seconds(10)
    ) {
        self.listeners = listeners
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        self.clientCertificateAuthoritiesFile = clientCertificateAuthoritiesFile
        self.limits = limits
        self.threads = threads
        self.shutdownGracePeriod = shutdownGracePeriod
    }

    /// Development (sandbox) on 2197 and production on 2196, loopback only, each serving every
    /// API: 2196 is also Apple's production channel management port (A10). Development channel
    /// management on 2195, as Apple's, left out when another server holds that port.
    public static let defaultListeners = [
        Listener(host: "127.0.0.1", port: 2197, environment: .development),
        Listener(host: "127.0.0.1", port: 2196, environment: .production),
        Listener(host: "127.0.0.1", port: 2195, environment: .development, role: .channelManagement, required: false),
    ]
}
