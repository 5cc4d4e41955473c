import Logging
import NIOCore
import NIOPosix
import PushlabNGHTTP2
import PushlabOpenSSL
import PushlabTransport

/// A real TLS + HTTP/2 client over a socket, for tests: our TLS handler in client role and an
/// nghttp2 client session, driven on the channel's event loop.
final class TLSTestClient: @unchecked Sendable {
    // Everything mutable is touched only on `channel.eventLoop`.
    let channel: Channel
    private let bridge: ClientBridge

    static func connect(
        port: Int, group: EventLoopGroup, serverName: String? = "localhost", alpn: [String] = ["h2"],
        certificate: String? = nil
    ) async throws -> TLSTestClient {
        let context = try TLSContext(
            trustedCertificatesFile: TestCertificates.path("ca.pem"),
            certificateFile: certificate.map { TestCertificates.path("\($0).pem") },
            privateKeyFile: certificate.map { TestCertificates.path("\($0)-key.pem") },
            alpn: alpn
        )
        let bridge = try ClientBridge()
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([TLSHandler(context: context, serverName: serverName), bridge])
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return TLSTestClient(channel: channel, bridge: bridge)
    }

    private init(channel: Channel, bridge: ClientBridge) {
        self.channel = channel
        self.bridge = bridge
    }

    /// Sends a request and waits for its stream to end; returns status, headers and body.
    func send(path: String = "/3/device/" + String(repeating: "ab", count: 32), authority: String = "localhost", body: String = "{}") async throws -> (status: String?, headers: HTTP2HeaderList, body: String) {
        let stream = try await channel.eventLoop.submit {
            try self.bridge.request(path: path, authority: authority, body: body)
        }.get()
        try await waitUntil { self.bridge.events.ended.contains(stream) || self.bridge.events.resets[stream] != nil }
        return try await channel.eventLoop.submit {
            let headers = self.bridge.events.headers[stream] ?? HTTP2HeaderList()
            return (headers.value(of: ":status"), headers, self.bridge.events.body(stream) ?? "")
        }.get()
    }

    func onLoop<T: Sendable>(_ body: @escaping @Sendable (ClientBridge) throws -> T) async throws -> T {
        try await channel.eventLoop.submit { try body(self.bridge) }.get()
    }

    func waitUntil(_ condition: @escaping @Sendable () -> Bool) async throws {
        for _ in 0..<500 {
            if try await channel.eventLoop.submit(condition).get() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TimedOut()
    }

    struct TimedOut: Error {}
}

final class ClientBridge: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let session: HTTP2Session
    let events = ClientEvents()
    var handshake: TLSHandshakeCompleted?
    var isClosed = false
    private var context: ChannelHandlerContext?

    init() throws {
        session = try HTTP2Session(role: .client, delegate: events)
        // The preface (magic + SETTINGS) must precede any request, whenever the first one is made.
        try session.submitSettings([])
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelActive(context: ChannelHandlerContext) {
        flush()
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let handshake = event as? TLSHandshakeCompleted {
            self.handshake = handshake
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        try? bytes.withUnsafeReadableBytes { try session.receive($0) }
        flush()
    }

    func channelInactive(context: ChannelHandlerContext) { isClosed = true }

    func request(path: String, authority: String, body: String) throws -> Int32 {
        let headers = HTTP2HeaderList([(":method", "POST"), (":scheme", "https"), (":path", path), (":authority", authority)])
        let stream = try session.submitRequest(headers: headers, body: Array(body.utf8))
        flush()
        return stream
    }

    func flush() {
        guard let context else { return }
        var buffer = context.channel.allocator.buffer(capacity: 512)
        while let chunk = try? session.nextOutboundChunk() { buffer.writeBytes(chunk) }
        if buffer.readableBytes > 0 { context.writeAndFlush(wrapOutboundOut(buffer), promise: nil) }
    }
}
