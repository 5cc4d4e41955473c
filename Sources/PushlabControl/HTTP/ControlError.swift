import Hummingbird
import PushlabCore
import PushlabSimulator
import PushlabStore

/// The one error every route throws: an HTTP status and a message for people. The response is
/// always `{"error": "<message>"}`.
public struct ControlError: Error, Equatable, CustomStringConvertible, HTTPResponseError {
    public let status: HTTPResponse.Status
    public let message: String
    /// Extra response headers (`Allow` on 405).
    var headers: HTTPFields = [:]

    public init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status.code) \(message)" }

    /// 400: the request itself is wrong.
    static func invalid(_ message: String) -> ControlError { ControlError(.badRequest, message) }
    /// 404: no such device, app, notification, key or rule.
    static func notFound(_ message: String) -> ControlError { ControlError(.notFound, message) }
    /// 409: it exists already, or the state of things forbids it now.
    static func conflict(_ message: String) -> ControlError { ControlError(.conflict, message) }

    /// A simulator refusal keeps its words; its kind picks the status.
    init(_ error: SimulatorError) {
        switch error.kind {
        case .notFound: self.init(.notFound, error.description)
        case .conflict: self.init(.conflict, error.description)
        case .invalid: self.init(.badRequest, error.description)
        }
    }

    /// The store could not be read: the server's fault, not the request's.
    init(_ error: StoreError) {
        self.init(.internalServerError, error.description)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse(status: status, .object([("error", .string(message))])).response
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// Runs a simulator call, turning its refusal into a `ControlError`.
@discardableResult
func simulating<T>(_ body: () throws(SimulatorError) -> T) throws(ControlError) -> T {
    do {
        return try body()
    } catch {
        throw ControlError(error)
    }
}
