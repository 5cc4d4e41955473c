import NIOCore
import Synchronization

/// Commands written together, with the promises their answers fulfil in order. `claimed` says
/// whether the handler took the promises: a write that never reaches it (the channel had closed)
/// leaves them to the writer to fail, and none is completed twice.
struct RESPWrite: Sendable {
    var commands: [RESPCommand]
    var promises: [EventLoopPromise<RESPValue>]
    let claimed = Claim()

    final class Claim: Sendable {
        private let taken = Atomic<Bool>(false)
        /// True for the first caller only.
        func take() -> Bool { !taken.exchange(true, ordering: .acquiringAndReleasing) }
    }
}

/// RESP on a channel: encodes each write's commands as one buffer and fulfils the promises of the
/// commands in the order Redis answers (Redis answers in the order it reads). Out-of-band
/// values (RESP3 pushes) are no answers and are left out. Runs on the channel's event loop only.
final class RESPChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = RESPWrite
    typealias OutboundOut = ByteBuffer

    private var parser = RESPParser()
    private var waiting = CircularBuffer<EventLoopPromise<RESPValue>>()
    private var failure: RedisError?
    private let endpoint: RedisEndpoint
    /// A flush is scheduled for the end of this turn of the event loop: the commands of every
    /// caller in the turn go out in one write (a write per command cost a system call each).
    private var flushScheduled = false

    init(endpoint: RedisEndpoint) {
        self.endpoint = endpoint
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let write = unwrapOutboundIn(data)
        guard write.claimed.take() else { return }
        if let failure {
            for answer in write.promises { answer.fail(failure) }
            promise?.fail(failure)
            return
        }
        var bytes: [UInt8] = []
        for command in write.commands { command.encode(into: &bytes) }
        for answer in write.promises { waiting.append(answer) }
        var buffer = context.channel.allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            bound.value.handler.flushScheduled = false
            bound.value.context.flush()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        buffer.withUnsafeReadableBytes { parser.append($0) }
        do {
            while let value = try parser.next() {
                if case .push = value { continue }
                guard let answer = waiting.popFirst() else {
                    fail(context, RedisError(.protocolError, "\(endpoint) sent an answer to no command: \(value)"))
                    return
                }
                answer.succeed(value)
            }
        } catch {
            fail(context, RedisError(.protocolError, "\(endpoint): \(error)"))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(RedisError(.connection, "the connection to \(endpoint) closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        fail(context, RedisError(.connection, "the connection to \(endpoint) failed: \(error)"))
    }

    private func fail(_ context: ChannelHandlerContext, _ error: RedisError) {
        failAll(error)
        context.close(promise: nil)
    }

    private func failAll(_ error: RedisError) {
        if failure == nil { failure = error }
        while let answer = waiting.popFirst() { answer.fail(error) }
    }
}
