import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix
import PushlabCore

/// Sends a request about one phone (`/v1/devices/{id}…`, and `POST /v1/devices` by the new
/// phone's id) to the node that simulates it, and answers with that node's answer, status,
/// headers and body as they are. A request that a
/// node forwarded is answered where it lands (`pushlab-forwarded-by`), so a node that lost the
/// phone meanwhile answers from its copy rather than send it round.
struct ClusterForwardingMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    static let forwardedBy = "pushlab-forwarded-by"
    static let maximumBody = ClusterHTTP.maximumBody

    let node: String
    let routing: any ClusterRouting

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A request replayed from the world's changes is this node's alone.
        guard request.headers[ClusterChangeApplier.replayHeader] == nil else { return try await next(request, context) }
        if request.method == .post, request.uri.path == "/v1/devices" { return try await addDevice(request, context: context, next: next) }
        guard let deviceID = Self.deviceID(in: request.uri.path) else { return try await next(request, context) }
        if request.headers.contains(where: { $0.name.canonicalName == Self.forwardedBy }) {
            // Sent here as this phone's node: answered only if it still is (the sender routes again).
            guard await routing.route(device: deviceID) == .here else { throw Self.moved(deviceID) }
            return try await answeredHere(request, context, next)
        }
        var collecting = request
        let body = try await collecting.collectBody(upTo: Self.maximumBody)
        return try await answer(request, body: body, about: deviceID, context: context, next: next)
    }

    /// `POST /v1/devices`: made by the new phone's node. A phone without an id gets the
    /// cluster's next `device-N` (`ClusterRouting.newDeviceID`), passing over ids taken.
    private func addDevice(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var collecting = request
        let body = try await collecting.collectBody(upTo: Self.maximumBody)
        guard case .object(var members)? = try? JSONParser.parse(Array(body.readableBytesView)) else {
            // Not a phone: the route says why, here.
            var here = request
            here.body = RequestBody(buffer: body)
            return try await next(here, context)
        }
        if case .string(let id)? = members.first(where: { $0.0 == "id" })?.1, !id.isEmpty {
            return try await answer(request, body: body, about: id, context: context, next: next)
        }
        members.removeAll { $0.0 == "id" }
        for _ in 0..<Self.idAttempts {
            let id: String
            do {
                id = try await routing.newDeviceID()
            } catch {
                throw ControlError(.serviceUnavailable, "The cluster's engine did not give the new device an id: \(error). Try again, or give it an id.")
            }
            var writer = JSONWriter()
            writer.value(.object([("id", .string(id))] + members))
            // Taken (a scenario's phone may be called device-N): the next one.
            do {
                let response = try await answer(request, body: ByteBuffer(bytes: writer.bytes), about: id, context: context, next: next)
                guard response.headers[Self.idTakenHeader] != nil else { return response }
            } catch let error as ControlError where error.headers[Self.idTakenHeader] != nil {
                continue
            }
        }
        throw ControlError.conflict("\(Self.idAttempts) ids in a row were taken; give the device an id")
    }

    static let idAttempts = 64

    /// On a 409 for a new phone whose id another phone has.
    static let idTakenHeader = HTTPField.Name("pushlab-id-taken")!

    /// The answer of the node that simulates `deviceID`'s phone, which may be this one.
    private func answer(
        _ request: Request, body: ByteBuffer, about deviceID: String, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // Routing settles a phone simulated here first.
        var route = await routing.route(device: deviceID)
        // A node that died still holds its phones until its leases run out (3 s): a request it
        // could not be sent to waits for the phone's next node, and goes there (or is answered
        // here). Nothing was sent, so even a POST is safe to send again; a GET is in any case.
        let deadline = ContinuousClock.now + Self.failoverWait
        while true {
            var failure: ForwardingFailure?
            switch route {
            case .here:
                var here = request
                here.body = RequestBody(buffer: body)
                return try await answeredHere(here, context, next)
            case .node(let node, let address):
                switch await forward(request, body: body, to: address) {
                case .success(let response) where response.headers[Self.movedHeader] == nil: return response
                case .success: failure = ForwardingFailure(sent: false, error: ControlError(.serviceUnavailable, "\(node) no longer simulates it"))
                case .failure(let failed): failure = failed
                }
            case .nobody:
                failure = nil
            }
            // Sent or not, a request HTTP calls idempotent may go again (a node that died with
            // a kept-alive connection resets it after the request went out).
            let again = failure.map { !$0.sent || [.get, .head, .put, .delete].contains(request.method) } ?? true
            guard again, ContinuousClock.now < deadline else {
                guard let failure, case .node(let node, let address) = route else { throw Self.moved(deviceID) }
                throw ControlError(
                    .serviceUnavailable,
                    "Device \(deviceID) is simulated by node \(node) (\(address)), which did not answer: \(failure.error). Try again: a dead node's phones move to another within seconds."
                )
            }
            try await Task.sleep(for: .milliseconds(100))
            route = await routing.route(device: deviceID)
        }
    }

    /// No node simulates the phone just now (or, to a sender, not this one any more).
    private static func moved(_ deviceID: String) -> ControlError {
        var error = ControlError(
            .serviceUnavailable,
            "No node simulates device \(deviceID) just now: its phones are moving to another node (a node died or left). Try again in a few seconds."
        )
        error.headers[movedHeader] = "1"
        return error
    }

    static let movedHeader = HTTPField.Name("pushlab-moving")!

    /// Says which node answered (`pushlab-node`), the phone's. What a change did is in the
    /// engine first: the phone as it is now, and the tokens it made or retired in every node's
    /// world.
    private func answeredHere(_ request: Request, _ context: Context, _ next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if request.method != .get, request.method != .head { await routing.writePhones() }
        await routing.shareTokenChanges()
        response.headers[Self.answeringNode] = node
        return response
    }

    static let answeringNode = HTTPField.Name("pushlab-node")!

    /// How long a request waits for a dead node's phone to move: its leases' duration (3 s),
    /// and some.
    static let failoverWait = Duration.seconds(8)

    private struct ForwardingFailure: Error {
        /// Whether the request may have reached the node.
        var sent: Bool
        var error: any Error
    }

    private func forward(_ request: Request, body: ByteBuffer, to address: String) async -> Result<Response, ForwardingFailure> {
        var forwarded = HTTPClientRequest(url: address + (request.uri.string.hasPrefix("/") ? request.uri.string : "/" + request.uri.string))
        forwarded.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers where field.name != .contentLength {
            forwarded.headers.add(name: field.name.rawName, value: field.value)
        }
        forwarded.headers.add(name: Self.forwardedBy, value: node)
        if body.readableBytes > 0 || request.method == .post || request.method == .put || request.method == .patch {
            forwarded.body = .bytes(body)
        }
        let answer: HTTPClientResponse
        let collected: ByteBuffer
        do {
            answer = try await Self.client.execute(forwarded, timeout: .seconds(30))
        } catch {
            return .failure(ForwardingFailure(sent: !Self.isRefusedConnection(error), error: error))
        }
        do {
            collected = try await answer.body.collect(upTo: Self.maximumBody)
        } catch {
            return .failure(ForwardingFailure(sent: true, error: error))
        }
        // What a route's answer carries besides its body.
        var headers = HTTPFields()
        if let type = answer.headers.first(name: "content-type") { headers[.contentType] = type }
        if let allow = answer.headers.first(name: "allow") { headers[.allow] = allow }
        if let challenge = answer.headers.first(name: "www-authenticate") { headers[.wwwAuthenticate] = challenge }
        if let answering = answer.headers.first(name: Self.answeringNode.rawName) { headers[Self.answeringNode] = answering }
        if let moving = answer.headers.first(name: Self.movedHeader.rawName) { headers[Self.movedHeader] = moving }
        if let taken = answer.headers.first(name: Self.idTakenHeader.rawName) { headers[Self.idTakenHeader] = taken }
        return .success(Response(status: HTTPResponse.Status(code: Int(answer.status.code)), headers: headers, body: ResponseBody(byteBuffer: collected)))
    }

    /// No connection could be made: the request never left.
    private static func isRefusedConnection(_ error: any Error) -> Bool {
        if error is NIOConnectionError { return true }
        if let io = error as? IOError, io.errnoCode == ECONNREFUSED { return true }
        if let client = error as? HTTPClientError, client == .connectTimeout { return true }
        return false
    }

    private static var client: HTTPClient { ClusterHTTP.client }

    /// The phone a path is about: `/v1/devices/{id}` and everything under it.
    static func deviceID(in path: String) -> String? {
        let prefix = "/v1/devices/"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        let id = rest.prefix { $0 != "/" }
        guard !id.isEmpty else { return nil }
        return String(id).removingPercentEncoding ?? String(id)
    }
}
