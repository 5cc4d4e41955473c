import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import Logging
import PushlabCore
import NIOCore
import NIOHTTP1
import Synchronization

/// Applies the cluster's changes to this node's world, in the engine's order, each by replaying
/// its request against this node's own control API (`replayHeader`, which no cluster middleware
/// acts on): so a change does on every node exactly what it does in a single process. It keeps
/// the answers, for the node that received a change to answer with its own.
final class ClusterChangeApplier: Sendable {
    static let replayHeader = HTTPField.Name("pushlab-replay")!

    private let routing: any ClusterRouting
    private let logger: Logger
    private let target = Mutex<(address: String, token: String?)?>(nil)
    private let state = Mutex(State())
    private let loop = Mutex<Task<Void, Never>?>(nil)

    private struct State {
        var last: String?
        /// Answers of the latest changes, for the requests that made them.
        var answers: [String: Answer] = [:]
        var order: [String] = []
        var waiting: [String: [CheckedContinuation<Answer?, Never>]] = [:]
    }

    /// A replayed request's answer.
    struct Answer: Sendable {
        var status: Int
        var contentType: String?
        var body: ByteBuffer

        var response: Response {
            var headers = HTTPFields()
            if let contentType { headers[.contentType] = contentType }
            return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: body))
        }
    }

    init(routing: any ClusterRouting, logger: Logger = Logger(label: "pushlab.cluster")) {
        self.routing = routing
        self.logger = logger
    }

    /// Applies every change made so far, then keeps applying them until `stop`. `address`: this
    /// node's control API; `token`: its bearer token, if it has one.
    func start(address: String, token: String?) async {
        target.withLock { $0 = (address, token) }
        while await applyNew() > 0 {}
        let task = Task { [self] in
            let clock = ContinuousClock()
            while !Task.isCancelled {
                // A routing that waits for the next change (a node's) comes back when there is
                // one; one that answers at once is asked again after a pause, not in a spin.
                let asked = clock.now
                if await applyNew() == 0, clock.now - asked < .milliseconds(10) { try? await Task.sleep(for: .milliseconds(20)) }
            }
        }
        loop.withLock { $0 = task }
    }

    func stop() async {
        let task = loop.withLock { loop in
            defer { loop = nil }
            return loop
        }
        task?.cancel()
        await task?.value
        state.withLock { state in
            for waiters in state.waiting.values { waiters.forEach { $0.resume(returning: nil) } }
            state.waiting.removeAll()
        }
    }

    /// This node's answer to change `id`, once it has applied it; nil after `timeout`.
    func answer(to id: String, timeout: Duration) async -> Answer? {
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            finish(id, nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let done: Answer?? = state.withLock { state in
                if let answer = state.answers[id] { return .some(answer) }
                state.waiting[id, default: []].append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    private func finish(_ id: String, _ answer: Answer?) {
        let waiters = state.withLock { state in
            if let answer {
                state.answers[id] = answer
                state.order.append(id)
                if state.order.count > Self.keptAnswers { state.answers[state.order.removeFirst()] = nil }
            }
            return state.waiting.removeValue(forKey: id) ?? []
        }
        waiters.forEach { $0.resume(returning: answer) }
    }

    private static let keptAnswers = 1000

    /// One read of the changes, each applied; how many there were.
    private func applyNew() async -> Int {
        let changes: [ClusterChange]
        do {
            changes = try await routing.changes(after: state.withLock { $0.last })
        } catch {
            logger.warning("Reading the cluster's changes failed; tried again", metadata: ["error": "\(error)"])
            try? await Task.sleep(for: .milliseconds(200))
            return 0
        }
        for change in changes {
            let answer = Mutex<Answer?>(nil)
            await routing.apply(change) { [self] in
                let replayed = await replay(change)
                answer.withLock { $0 = replayed }
            }
            // A clock that moved may have made phones here retire tokens: they go first.
            await routing.publishPending()
            state.withLock { $0.last = change.id }
            finish(change.id, answer.withLock { $0 } ?? Answer(status: 500, contentType: nil, body: ByteBuffer()))
            do {
                try await routing.markApplied(change.id)
            } catch {
                logger.warning("Saying change \(change.id) was applied failed", metadata: ["error": "\(error)"])
            }
        }
        return changes.count
    }

    /// The change's request, sent to this node's own control API.
    private func replay(_ change: ClusterChange) async -> Answer {
        guard let (address, token) = target.withLock({ $0 }) else {
            return Self.failure("this node's control API is not listening yet")
        }
        var request = HTTPClientRequest(url: address + change.path)
        request.method = HTTPMethod(rawValue: change.method)
        request.headers.add(name: Self.replayHeader.rawName, value: change.id)
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        if !change.body.isEmpty {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: change.body))
        }
        do {
            let response = try await ClusterHTTP.client.execute(request, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: ClusterHTTP.maximumBody)
            return Answer(status: Int(response.status.code), contentType: response.headers.first(name: "content-type"), body: body)
        } catch {
            logger.error("Change \(change.id) (\(change.method) \(change.path)) could not be applied here", metadata: ["error": "\(error)"])
            return Self.failure("this node could not apply it: \(error)")
        }
    }

    private static func failure(_ message: String) -> Answer {
        var writer = JSONWriter()
        writer.value(.object([("error", .string(message))]))
        return Answer(status: 500, contentType: "application/json", body: ByteBuffer(bytes: writer.bytes))
    }
}

/// The HTTP client a node's control API talks to the nodes with.
enum ClusterHTTP {
    /// As much as any route takes in a body (`ControlBody.maximumBodySize`), and some.
    static let maximumBody = 16 * 1024 * 1024

    /// Fails at once when a node does not accept the connection (it died), rather than trying
    /// again until the request's deadline.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        // A dead node refuses at once; this is for one too busy to accept.
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// For the long streams of other nodes' events (`ClusterEvents`), apart, so that they never
    /// hold the connections a list or a forwarded request waits for.
    static let streamingClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
}
