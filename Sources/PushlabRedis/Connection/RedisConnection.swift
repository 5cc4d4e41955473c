import NIOCore
import NIOPosix

/// One connection to one Redis server, speaking RESP3 (`HELLO 3`). Commands may be sent from any
/// thread and any number at once: they are pipelined, each answered in order. A connection that
/// closes fails what it had not answered and stays closed; the cluster client makes another.
public final class RedisConnection: Sendable {
    public let endpoint: RedisEndpoint
    private let channel: any Channel

    private init(endpoint: RedisEndpoint, channel: any Channel) {
        self.endpoint = endpoint
        self.channel = channel
    }

    /// Connects and says `HELLO 3`. Throws `.connection` when the server cannot be reached in
    /// `timeout`, `.server` when it refuses RESP3 (Redis before 6).
    public static func connect(
        to endpoint: RedisEndpoint, on group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, timeout: Duration = .seconds(2)
    ) async throws(RedisError) -> RedisConnection {
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.nanoseconds(Int64(timeout / .nanoseconds(1))))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(RESPChannelHandler(endpoint: endpoint)) }
                }
                .connect(host: endpoint.host, port: endpoint.port).get()
        } catch {
            throw RedisError(.connection, "cannot connect to \(endpoint): \(error)")
        }
        let connection = RedisConnection(endpoint: endpoint, channel: channel)
        do {
            _ = try await connection.send(RESPCommand("HELLO", "3"))
        } catch {
            await connection.close()
            throw error
        }
        return connection
    }

    /// Whether the connection can still carry commands.
    public var isActive: Bool { channel.isActive }

    /// The command's answer; a server error is thrown as `.server`.
    public func send(_ command: RESPCommand) async throws(RedisError) -> RESPValue {
        let value = try await answer(command)
        if case .error(let message) = value { throw RedisError(.server, message) }
        return value
    }

    /// The command's answer as it came, a server error included (the cluster client reads
    /// MOVED and ASK from it).
    public func answer(_ command: RESPCommand) async throws(RedisError) -> RESPValue {
        try await pipeline([command])[0]
    }

    /// The answers of `commands`, written in one go and answered in order; server errors stay
    /// values, one per command.
    public func pipeline(_ commands: [RESPCommand]) async throws(RedisError) -> [RESPValue] {
        guard !commands.isEmpty else { return [] }
        let loop = channel.eventLoop
        let promises = commands.map { _ in loop.makePromise(of: RESPValue.self) }
        let write = RESPWrite(commands: commands, promises: promises)
        let written = loop.makePromise(of: Void.self)
        written.futureResult.whenFailure { [endpoint] error in
            guard write.claimed.take() else { return }
            for promise in promises { promise.fail(RedisError(.connection, "cannot write to \(endpoint): \(error)")) }
        }
        channel.writeAndFlush(write, promise: written)
        var answers: [RESPValue] = []
        answers.reserveCapacity(commands.count)
        for promise in promises {
            do {
                answers.append(try await promise.futureResult.get())
            } catch let error as RedisError {
                throw error
            } catch {
                throw RedisError(.connection, "\(endpoint): \(error)")
            }
        }
        return answers
    }

    public func close() async {
        try? await channel.close()
    }
}
