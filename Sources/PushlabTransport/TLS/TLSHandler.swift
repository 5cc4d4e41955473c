import Logging
import NIOCore
import PushlabOpenSSL

/// TLS by OpenSSL through memory BIOs: ciphertext in from the socket, plaintext up the
/// pipeline; plaintext down from HTTP/2, ciphertext out at `flush`.
/// Used on one event loop only, never re-entrantly: its stored state skips Swift's run-time
/// exclusivity checks (`@exclusivity(unchecked)`, see Benchmarks/results/performance-history.md).
public final class TLSHandler: ChannelDuplexHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    private enum State { case handshaking, established, closing, closed }

    private let connection: TLSConnection
    private let logger: Logger
    @exclusivity(unchecked) private var state = State.handshaking
    /// Writes that arrive before the handshake is done (a client's preface).
    private var writesBeforeHandshake: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    /// Promises of plaintext writes whose ciphertext goes out at the next flush.
    @exclusivity(unchecked) private var promisesAwaitingFlush: [EventLoopPromise<Void>] = []
    private static let readChunk = 16 * 1024
    private static let keptSendCapacity = 64 * 1024
    @exclusivity(unchecked) private var receiveBuffer: ByteBuffer?
    /// Reused for every flush: once the socket has written a flush (usually at once) the storage
    /// is ours alone again, and `clear()` keeps it; while NIO still holds it, `clear()` starts anew.
    @exclusivity(unchecked) private var sendBuffer: ByteBuffer?

    private let handshakeTimeout: TimeAmount
    private var handshakeDeadline: Scheduled<Void>?

    public init(
        context: TLSContext, serverName: String? = nil, handshakeTimeout: TimeAmount = .seconds(10),
        logger: Logger = Logger(label: "pushlab.tls")
    ) throws {
        self.connection = try TLSConnection(context: context, serverName: serverName)
        self.handshakeTimeout = handshakeTimeout
        self.logger = logger
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armHandshakeDeadline(context: context) }
    }

    /// A peer that connects and never finishes the handshake does not hold a connection forever.
    private func armHandshakeDeadline(context: ChannelHandlerContext) {
        guard handshakeDeadline == nil, state == .handshaking else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        handshakeDeadline = context.eventLoop.scheduleTask(in: handshakeTimeout) {
            let (handler, context) = loopBound.value
            guard handler.state == .handshaking else { return }
            handler.logger.debug("TLS handshake timed out")
            handler.fail(context: context)
        }
    }

    public func channelActive(context: ChannelHandlerContext) {
        armHandshakeDeadline(context: context)
        if connection.context.role == .client {
            advanceHandshake(context: context)
            flushCiphertext(context: context)
        }
        context.fireChannelActive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ciphertext = unwrapInboundIn(data)
        // OpenSSL decrypts straight from the socket's buffer while it is lent.
        ciphertext.withUnsafeReadableBytes { bytes in
            connection.receiving(bytes) {
                if state == .handshaking { advanceHandshake(context: context) }
                if state == .established || state == .closing { deliverPlaintext(context: context) }
            }
        }
        flushCiphertext(context: context)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        state = .closed
        handshakeDeadline?.cancel()
        handshakeDeadline = nil
        let error = ChannelError.ioOnClosedChannel
        writesBeforeHandshake.forEach { $0.1?.fail(error) }
        writesBeforeHandshake = []
        promisesAwaitingFlush.forEach { $0.fail(error) }
        promisesAwaitingFlush = []
        context.fireChannelInactive()
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let plaintext = unwrapOutboundIn(data)
        switch state {
        case .handshaking:
            writesBeforeHandshake.append((plaintext, promise))
        case .established, .closing:
            encrypt(plaintext, promise: promise, context: context)
        case .closed:
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    public func flush(context: ChannelHandlerContext) {
        flushCiphertext(context: context)
    }

    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all, state == .established {
            state = .closing
            connection.shutdown()
            flushCiphertext(context: context)
        }
        context.close(mode: mode, promise: promise)
    }

    // MARK: Internals

    private func advanceHandshake(context: ChannelHandlerContext) {
        do {
            guard try connection.handshake() == .complete else { return }
        } catch {
            logger.debug("TLS handshake failed", metadata: ["error": "\(error)"])
            context.fireUserInboundEventTriggered(TLSHandshakeFailed(
                error: "\(error)",
                peerVerification: connection.peerVerification,
                rejectedPeerCertificate: connection.rejectedPeerCertificate
            ))
            fail(context: context)
            return
        }
        state = .established
        handshakeDeadline?.cancel()
        handshakeDeadline = nil
        context.fireUserInboundEventTriggered(TLSHandshakeCompleted(
            alpn: connection.negotiatedALPN,
            serverName: connection.serverName,
            tlsVersion: connection.protocolVersion,
            peerCertificate: connection.peerCertificate,
            peerVerification: connection.peerVerification
        ))
        let queued = writesBeforeHandshake
        writesBeforeHandshake = []
        for (plaintext, promise) in queued { encrypt(plaintext, promise: promise, context: context) }
    }

    private func deliverPlaintext(context: ChannelHandlerContext) {
        // Reused across reads: HTTP/2 above consumes it within `fireChannelRead`.
        var plaintext = receiveBuffer ?? context.channel.allocator.buffer(capacity: Self.readChunk)
        receiveBuffer = nil
        defer {
            plaintext.clear()
            receiveBuffer = plaintext
        }
        var peerClosed = false
        reading: while true {
            var result = TLSConnection.ReadResult.needsMoreData
            do {
                try plaintext.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.readChunk) { space in
                    result = try connection.readPlaintext(into: space)
                    if case .bytes(let count) = result { return count }
                    return 0
                }
            } catch {
                logger.debug("TLS read failed", metadata: ["error": "\(error)"])
                fail(context: context)
                return
            }
            switch result {
            case .bytes: continue reading
            case .needsMoreData: break reading
            case .closed:
                peerClosed = true
                break reading
            }
        }
        if plaintext.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(plaintext)) }
        if peerClosed { context.close(promise: nil) }
    }

    private func encrypt(_ plaintext: ByteBuffer, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        do {
            try plaintext.withUnsafeReadableBytes { try connection.writePlaintext($0) }
            if let promise { promisesAwaitingFlush.append(promise) }
        } catch {
            promise?.fail(error)
            fail(context: context)
        }
    }

    private func flushCiphertext(context: ChannelHandlerContext) {
        let pending = connection.pendingCiphertextCount
        let promises = promisesAwaitingFlush
        promisesAwaitingFlush = []
        guard pending > 0 else {
            promises.forEach { $0.succeed(()) }
            return
        }
        var ciphertext = sendBuffer ?? context.channel.allocator.buffer(capacity: pending)
        sendBuffer = nil
        ciphertext.clear()
        ciphertext.writeWithUnsafeMutableBytes(minimumWritableBytes: pending) { connection.drainCiphertext(into: $0) }
        // A rare large burst does not pin its buffer to the connection.
        defer { if ciphertext.capacity <= Self.keptSendCapacity { sendBuffer = ciphertext } }
        var writePromise: EventLoopPromise<Void>?
        if !promises.isEmpty {
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { result in promises.forEach { $0.completeWith(result) } }
            writePromise = promise
        }
        context.writeAndFlush(wrapOutboundOut(ciphertext), promise: writePromise)
    }

    /// Sends whatever alert OpenSSL queued, then closes.
    private func fail(context: ChannelHandlerContext) {
        guard state != .closed else { return }
        state = .closed
        flushCiphertext(context: context)
        context.close(promise: nil)
    }
}
