import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The control API on a plain HTTP/1.1 listener: started once bound (so the real port of port
/// 0 is known), stopped gracefully.
public final class ControlServer: Sendable {
    public let host: String
    public let port: Int
    private let api: ControlAPI
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(host: String, port: Int, api: ControlAPI, group: ServiceGroup, running: Task<Void, any Error>) {
        self.host = host
        self.port = port
        self.api = api
        self.group = group
        self.running = running
    }

    /// Binds `host:port` (0 picks a free port) and serves `api`, to holders of `token` only when
    /// one is given; throws if the address cannot be bound.
    public static func start(api: ControlAPI, host: String, port: Int, token: String? = nil, logger: Logger = Logger(label: "pushlab.control")) async throws -> ControlServer {
        let bound = BoundPort()
        let application = Application(
            router: api.router(token: token),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "pushlab"),
            onServerRunning: { channel in bound.resolve(.success(channel.localAddress?.port ?? port)) },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let running = Task {
            do {
                try await group.run()
                bound.resolve(.failure(ControlServerError(description: "The control API stopped before it was listening")))
            } catch {
                bound.resolve(.failure(error))
                throw error
            }
        }
        let actualPort = try await bound.value()
        return ControlServer(host: host, port: actualPort, api: api, group: group, running: running)
    }

    /// `http://host:port`.
    public var url: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Ends the event streams and cuts the stand-in's delayed answers short, then stops
    /// accepting and lets requests in flight finish.
    public func stop() async {
        api.closeEventStreams()
        api.standIn.stopDelays()
        await group.triggerGracefulShutdown()
        _ = await running.result
    }
}

public struct ControlServerError: Error, CustomStringConvertible {
    public let description: String
}

/// The port, once the server is listening, or why it is not: resolved once.
final class BoundPort: Sendable {
    private struct State {
        var result: Result<Int, any Error>?
        var waiter: CheckedContinuation<Int, any Error>?
    }

    private let state = Mutex(State())

    func resolve(_ result: Result<Int, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Int, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
