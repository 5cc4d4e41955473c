import Foundation
import Hummingbird

/// One route of the control API: a method, a path pattern (`/v1/devices/:id`) and the handler
/// that translates the request into calls and the result into JSON.
struct Route: Sendable {
    typealias Handler = @Sendable (Request, BasicRequestContext) async throws -> Response

    let method: HTTPRequest.Method
    let path: String
    let handler: Handler

    init(_ method: HTTPRequest.Method, _ path: String, _ handler: @escaping Handler) {
        self.method = method
        self.path = path
        self.handler = handler
    }

    /// Whether a request path fits the pattern (`:name` stands for one segment).
    func matches(path requestPath: String) -> Bool {
        let pattern = path.split(separator: "/", omittingEmptySubsequences: true)
        let segments = requestPath.split(separator: "/", omittingEmptySubsequences: true)
        if pattern.last == "**" {
            // A recursive wildcard: the segments before it, then anything.
            guard segments.count >= pattern.count - 1 else { return false }
            return zip(pattern.dropLast(), segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }
        guard pattern.count == segments.count else { return false }
        return zip(pattern, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
    }
}

extension BasicRequestContext {
    /// A path parameter, percent-decoded (`/v1/devices/Ann%27s%20phone`).
    func pathParameter(_ name: String) throws -> String {
        let raw = try parameters.require(name)
        return raw.removingPercentEncoding ?? raw
    }
}
