import Foundation
import PushlabCore

/// A request to one of the services' APIs, as either listener or the control API hands it over.
public struct ServiceHTTPRequest: Sendable {
    public var method: String
    /// The path without its query, percent-decoded segment by segment when routed.
    public var path: String
    public var query: [String: String]
    /// Header names in lower case.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method.uppercased()
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        self.body = body
    }

    /// The path's segments, without empty ones (a trailing slash, as some clients send, is the
    /// same path), percent-decoded.
    var segments: [String] {
        path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
    }
}

/// A service's answer: JSON (or an empty body, where the service sends none).
public struct ServiceHTTPResponse: Sendable {
    public var status: Int
    public var body: String
    public var headers: [(name: String, value: String)]

    public init(status: Int, body: String, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    static func json(_ status: Int, _ value: JSONValue) -> ServiceHTTPResponse {
        ServiceHTTPResponse(status: status, body: value.description)
    }
}
