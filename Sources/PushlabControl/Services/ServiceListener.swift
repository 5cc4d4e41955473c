import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PushlabOpenSSL
import PushlabTransport
import ServiceLifecycle

/// One service's HTTPS API (JPush's or GeTui's): HTTP/1.1 over Pushlab's own OpenSSL `TLSHandler`,
/// with a certificate that names the service's hosts, so a client pointed at it by host name and
/// CA trust talks to it as to the real one.
public final class ServiceListener: Sendable {
    public enum Kind: String, Sendable {
        case jpush
        case getui
    }

    public let kind: Kind
    public let host: String
    public let port: Int
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(kind: Kind, host: String, port: Int, group: ServiceGroup, running: Task<Void, any Error>) {
        self.kind = kind
        self.host = host
        self.port = port
        self.group = group
        self.running = running
    }

    /// Binds `host:port` (0 picks a free port) with the server certificate and key, and answers
    /// every request with `hub`'s API of `kind`; throws if it cannot.
    public static func start(
        _ kind: Kind, hub: ServiceHub, host: String, port: Int, certificateChainFile: String, privateKeyFile: String, logger: Logger
    ) async throws -> ServiceListener {
        let context = try TLSContext(serverCertificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile, protocol: .http1_1)
        let bound = BoundPort()
        let application = Application(
            responder: ServiceResponder(kind: kind, hub: hub),
            server: HTTPServerBuilder { responder in OpenSSLTLSChannel(base: HTTP1Channel(responder: responder), context: context) },
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: kind == .jpush ? "nginx" : "Tengine"),
            onServerRunning: { channel in bound.resolve(.success(channel.localAddress?.port ?? port)) },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let running = Task {
            do {
                try await group.run()
                bound.resolve(.failure(ServiceListenerError(description: "The \(kind.rawValue) listener stopped before it was listening")))
            } catch {
                bound.resolve(.failure(error))
                throw error
            }
        }
        return ServiceListener(kind: kind, host: host, port: try await bound.value(), group: group, running: running)
    }

    /// `https://host:port`.
    public var url: String { "https://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await running.result
    }
}

public struct ServiceListenerError: Error, CustomStringConvertible {
    public let description: String
}

/// Every request, whatever its path, to the service's API.
private struct ServiceResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let kind: ServiceListener.Kind
    let hub: ServiceHub

    func respond(to request: Request, context: Context) async throws -> Response {
        var body = try await request.body.collect(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        let serviceRequest = ServiceHTTPRequest(
            method: request.method.rawValue, path: request.uri.path, query: query, headers: headers, body: body.readBytes(length: body.readableBytes) ?? []
        )
        let answer = kind == .jpush ? await hub.jpush(serviceRequest) : await hub.getui(serviceRequest)
        var fields = HTTPFields()
        for header in answer.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        if fields[.contentType] == nil, !answer.body.isEmpty { fields[.contentType] = "application/json; charset=utf-8" }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: answer.body))
        )
    }
}

/// Hummingbird's HTTP/1.1 child channel behind Pushlab's OpenSSL TLS (HummingbirdTLS is NIOSSL's).
private struct OpenSSLTLSChannel<Base: ServerChildChannel & HTTPChannelHandler>: ServerChildChannel, HTTPChannelHandler {
    typealias Value = Base.Value
    let base: Base
    let context: TLSContext

    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(TLSHandler(context: context, logger: logger))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

