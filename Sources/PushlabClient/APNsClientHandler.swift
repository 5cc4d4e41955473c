import NIOCore
import PushlabNGHTTP2
import PushlabTransport

/// The HTTP/2 half of a client connection: an nghttp2 client session above `TLSHandler`.
/// Everything here runs on the channel's event loop.
final class APNsClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let session: HTTP2Session
    private let streams = ClientStreams()
    private var context: ChannelHandlerContext?
    var eventLoop: any EventLoop { context!.eventLoop }
    private(set) var handshake: TLSHandshakeCompleted?
    private var handshakePromise: EventLoopPromise<TLSHandshakeCompleted>?
    private var closedReason: String?
    private var handshakeFailure: TLSHandshakeFailed?

    init() throws {
        session = try HTTP2Session(role: .client, delegate: streams)
        // The connection preface (magic + SETTINGS) precedes any request.
        try session.submitSettings([])
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        handshakePromise = context.eventLoop.makePromise()
    }

    var handshakeCompleted: EventLoopFuture<TLSHandshakeCompleted> { handshakePromise!.futureResult }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let completed = event as? TLSHandshakeCompleted {
            handshake = completed
            handshakePromise?.succeed(completed)
            flush()
        } else if let failed = event as? TLSHandshakeFailed {
            handshakeFailure = failed
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        do {
            try bytes.withUnsafeReadableBytes { try session.receive($0) }
        } catch {
            fail("the server sent HTTP/2 this client cannot read: \(error)", context: context)
            return
        }
        if let goAway = streams.goAway { closedReason = "the server sent GOAWAY \(goAway)" }
        flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail("\(error)", context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        let reason = closedReason ?? "the server closed the connection"
        if let handshakeFailure {
            handshakePromise?.fail(handshakeFailure)
        } else {
            handshakePromise?.fail(APNsClientError("TLS handshake failed: \(reason)"))
        }
        streams.failAll(APNsClientError("No answer: \(reason)"))
        context.fireChannelInactive()
    }

    /// Sends `request` on a new stream; the promise gets the answer.
    func send(_ request: APNsClientRequest, authority: String, promise: EventLoopPromise<APNsAnswer>) {
        do {
            let headers = HTTP2HeaderList(request.fields(authority: authority))
            // A GET or DELETE carries no body: END_STREAM goes with its headers.
            let stream = try session.submitRequest(headers: headers, body: request.body.isEmpty && request.method != "POST" ? nil : request.body)
            streams.await(stream, promise)
            flush()
        } catch {
            promise.fail(APNsClientError("Cannot send the request: \(error)"))
        }
    }

    func close(promise: EventLoopPromise<Void>?) {
        try? session.submitGoAway(lastStreamID: 0)
        flush()
        context?.close(promise: promise)
    }

    private func flush() {
        guard let context else { return }
        var buffer = context.channel.allocator.buffer(capacity: 1024)
        while let chunk = try? session.nextOutboundChunk() { buffer.writeBytes(chunk) }
        if buffer.readableBytes > 0 { context.writeAndFlush(wrapOutboundOut(buffer), promise: nil) }
    }

    private func fail(_ reason: String, context: ChannelHandlerContext) {
        closedReason = reason
        context.close(promise: nil)
    }
}
