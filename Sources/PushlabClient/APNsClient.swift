import NIOCore
import NIOPosix
import PushlabOpenSSL
import PushlabTransport

/// A provider's connection to APNs (or to Pushlab): HTTP/2 over TLS, ALPN `h2`, one request per
/// stream, many in flight. Works against Apple's hosts too.
public final class APNsClient: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// SNI and the name the server's certificate must carry; nil sends no SNI and skips the
        /// name check (an IP address).
        public var serverName: String?
        /// CA bundle (PEM) to trust; nil uses the system's.
        public var trustedCertificatesFile: String?
        /// Client certificate and key for certificate-based auth: PEM files, or one PKCS#12
        /// file (`.p12`, told by its content) opened with `certificatePassword`.
        public var certificateFile: String?
        public var privateKeyFile: String?
        public var certificatePassword: String?
        /// Whether the server's certificate is checked. Only a server that is certainly the one
        /// meant may skip it: the control API's `POST /v1/send` reaching its own process's listener.
        public var verifyServer: Bool

        public init(
            host: String, port: Int, serverName: String? = nil, trustedCertificatesFile: String? = nil,
            certificateFile: String? = nil, privateKeyFile: String? = nil, certificatePassword: String? = nil, verifyServer: Bool = true
        ) {
            self.host = host
            self.port = port
            self.serverName = serverName
            self.trustedCertificatesFile = trustedCertificatesFile
            self.certificateFile = certificateFile
            self.privateKeyFile = privateKeyFile
            self.certificatePassword = certificatePassword
            self.verifyServer = verifyServer
        }

        /// `:authority`: the server name, or the host, with the port unless it is 443.
        var authority: String {
            let name = serverName ?? (host.contains(":") ? "[\(host)]" : host)
            return port == 443 ? name : "\(name):\(port)"
        }
    }

    public let configuration: Configuration
    private let channel: any Channel
    private let handler: NIOLoopBound<APNsClientHandler>
    private let ownedGroup: MultiThreadedEventLoopGroup?

    private init(configuration: Configuration, channel: any Channel, handler: NIOLoopBound<APNsClientHandler>, ownedGroup: MultiThreadedEventLoopGroup?) {
        self.configuration = configuration
        self.channel = channel
        self.handler = handler
        self.ownedGroup = ownedGroup
    }

    /// Connects and completes the TLS handshake.
    public static func connect(_ configuration: Configuration, group: (any EventLoopGroup)? = nil) async throws -> APNsClient {
        let context: TLSContext
        do {
            context = try TLSContext(
                trustedCertificatesFile: configuration.trustedCertificatesFile, verifyServer: configuration.verifyServer,
                certificateFile: configuration.certificateFile, privateKeyFile: configuration.privateKeyFile,
                certificatePassword: configuration.certificatePassword
            )
        } catch {
            throw APNsClientError("Cannot set up TLS: \(error)")
        }
        let ownedGroup = group == nil ? MultiThreadedEventLoopGroup(numberOfThreads: 1) : nil
        let loopGroup: any EventLoopGroup = group ?? ownedGroup!
        do {
            let channel = try await ClientBootstrap(group: loopGroup)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let tls = try TLSHandler(context: context, serverName: configuration.serverName)
                        try channel.pipeline.syncOperations.addHandlers([tls, try APNsClientHandler()])
                    }
                }
                .connect(host: configuration.host, port: configuration.port).get()
            let handler = try await channel.eventLoop.submit {
                NIOLoopBound(try channel.pipeline.syncOperations.handler(type: APNsClientHandler.self), eventLoop: channel.eventLoop)
            }.get()
            let completed = try await channel.eventLoop.flatSubmit { handler.value.handshakeCompleted }.get()
            guard completed.alpn == "h2" || completed.alpn == nil else {
                throw APNsClientError("The server chose ALPN \(completed.alpn ?? "none"), not h2")
            }
            return APNsClient(configuration: configuration, channel: channel, handler: handler, ownedGroup: ownedGroup)
        } catch let error as APNsClientError {
            try? await ownedGroup?.shutdownGracefully()
            throw error
        } catch let failure as TLSHandshakeFailed {
            try? await ownedGroup?.shutdownGracefully()
            throw APNsClientError.handshakeFailed(failure, configuration)
        } catch {
            try? await ownedGroup?.shutdownGracefully()
            throw APNsClientError("Cannot connect to \(configuration.host):\(configuration.port): \(error)")
        }
    }

    /// Sends one push and waits for APNs's answer.
    public func send(_ notification: APNsNotification) async throws -> APNsAnswer {
        try await send(notification.request)
    }

    /// Sends one request (a push, a broadcast, a channel management request) and waits for the answer.
    public func send(_ request: APNsClientRequest) async throws -> APNsAnswer {
        let authority = configuration.authority
        return try await channel.eventLoop.flatSubmit { [handler] in
            let promise = handler.value.eventLoop.makePromise(of: APNsAnswer.self)
            handler.value.send(request, authority: authority, promise: promise)
            return promise.futureResult
        }.get()
    }

    /// GOAWAY, then close.
    public func close() async {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute { [handler] in handler.value.close(promise: promise) }
        try? await promise.futureResult.get()
        try? await ownedGroup?.shutdownGracefully()
    }
}
