import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PushlabCore
import PushlabOpenSSL

/// The APNs look-alike: TLS + HTTP/2 listeners, one per environment, in front of an `APNsConnectionFactory`.
public final class PushlabServer: Sendable {
    /// A listener with the port it actually got.
    public typealias BoundListener = APNsListener

    public let configuration: ServerConfiguration
    public let connections = ConnectionRegistry()
    private let service: any APNsConnectionFactory
    private let tlsContext: TLSContext
    private let group: MultiThreadedEventLoopGroup
    private let ownsGroup: Bool
    private let logger: Logger
    private let state = NIOLockedValueBox<(channels: [Channel], bound: [BoundListener])>(([], []))

    /// `service` decides what each answer waits for (`CommittingConnectionFactory` for
    /// `--durable`).
    public init(
        configuration: ServerConfiguration,
        service: any APNsConnectionFactory,
        eventLoopGroup: MultiThreadedEventLoopGroup? = nil,
        logger: Logger = Logger(label: "pushlab.server")
    ) throws {
        self.configuration = configuration
        self.service = service
        self.logger = logger
        self.tlsContext = try TLSContext(
            serverCertificateChainFile: configuration.certificateChainFile,
            privateKeyFile: configuration.privateKeyFile,
            clientCertificateAuthoritiesFile: configuration.clientCertificateAuthoritiesFile
        )
        if let eventLoopGroup {
            group = eventLoopGroup
            ownsGroup = false
        } else {
            group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads))
            ownsGroup = true
        }
    }

    /// Binds every listener; returns them with their actual ports. A required listener that
    /// cannot bind throws `ListenerUnavailable`, naming it; one not required is left out.
    @discardableResult
    public func start() async throws(ListenerUnavailable) -> [BoundListener] {
        var channels: [Channel] = []
        var bound: [BoundListener] = []
        for listener in configuration.listeners {
            do {
                let channel = try await bootstrap(for: listener).bind(host: listener.host, port: listener.port).get()
                channels.append(channel)
                bound.append(BoundListener(
                    host: listener.host, port: channel.localAddress?.port ?? listener.port, environment: listener.environment,
                    role: listener.role, required: listener.required
                ))
            } catch where !listener.required {
                continue
            } catch {
                for channel in channels { try? await channel.close() }
                throw ListenerUnavailable(listener: listener, reason: ListenerUnavailable.reason(of: error))
            }
        }
        let result = bound
        state.withLockedValue { $0 = (channels, result) }
        return result
    }

    public var boundListeners: [BoundListener] { state.withLockedValue { $0.bound } }

    /// Graceful shutdown: stop accepting, GOAWAY `{"reason":"Shutdown"}` on every connection,
    /// let in-flight streams finish (up to the grace period), then close what is left.
    public func shutdown() async {
        let channels = state.withLockedValue { current in
            defer { current.channels = [] }
            return current.channels
        }
        for channel in channels { try? await channel.close() }
        connections.goAwayAll(.shutdown)
        let deadline = ContinuousClock.now + configuration.shutdownGracePeriod
        while connections.count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        connections.closeAll()
        while connections.count > 0, ContinuousClock.now < deadline + .seconds(1) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if ownsGroup { try? await group.shutdownGracefully() }
    }

    private func bootstrap(for listener: ServerConfiguration.Listener) -> ServerBootstrap {
        let tlsContext = self.tlsContext
        let service = self.service
        let registry = self.connections
        let limits = configuration.limits
        let logger = self.logger
        let (seconds, attoseconds) = configuration.tlsHandshakeTimeout.components
        let handshakeTimeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        return ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            // TCP_NODELAY at IPPROTO_TCP: `.socketOption(.tcp_nodelay)` set option 1 at SOL_SOCKET,
            // which is SO_DEBUG (refused without CAP_NET_ADMIN, so every connection failed in a container).
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let settings = APNsHTTP2Handler.Settings(
                        limits: limits, listenerEnvironment: listener.environment, listenerRole: listener.role,
                        connectionID: registry.makeConnectionID(), logger: logger
                    )
                    try channel.pipeline.syncOperations.addHandlers([
                        TLSHandler(context: tlsContext, handshakeTimeout: handshakeTimeout, logger: logger),
                        APNsHTTP2Handler(settings: settings, service: service, registry: registry),
                    ])
                }
            }
    }
}
