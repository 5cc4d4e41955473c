import AsyncHTTPClient
import Foundation
import NIOCore

/// A request to the control API as the CLI makes it, on AsyncHTTPClient (not URLSession, whose
/// FoundationNetworking would tie a static release build to libcurl): with
/// `PUSHLAB_CONTROL_TOKEN` as a bearer token when it is set (a server started with
/// `--control-token` answers 401 without it).
enum ControlAPIGet {
    static let tokenVariable = "PUSHLAB_CONTROL_TOKEN"
    /// The largest answer read: a page of observations or devices.
    static let largestAnswer = 64 << 20

    /// One client for the process (a command makes a few requests, then exits). A refused
    /// connection fails at once, as URLSession did: retried, it would wait out the connect timeout.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static var token: String? {
        ProcessInfo.processInfo.environment[tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The body and the status of a GET.
    static func data(from url: URL) async throws -> (Data, Int) {
        try await request("GET", url, body: nil)
    }

    /// The body and the status; `body` is sent as JSON.
    static func request(_ method: String, _ url: URL, body: String?, timeout: TimeAmount = .seconds(60)) async throws -> (Data, Int) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: timeout)
        let received = try await response.body.collect(upTo: largestAnswer)
        return (Data(received.readableBytesView), Int(response.status.code))
    }
}
