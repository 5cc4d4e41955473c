import Hummingbird

/// Turns every failure into `{"error": …}`: a `ControlError` as it is, an unknown route into a
/// 404 (or a 405 naming the methods the path takes), anything else into a 500 with its text.
/// Nothing a request does reaches the server as an unhandled error.
struct ControlErrorMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let routes: [Route]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ControlError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            return try controlError(for: error, request: request).response(from: request, context: context)
        } catch {
            context.logger.error("Control API \(request.method) \(request.uri.path) failed: \(error)")
            return try ControlError(.internalServerError, "\(error)").response(from: request, context: context)
        }
    }

    private func controlError(for error: HTTPError, request: Request) -> ControlError {
        guard error.status == .notFound else {
            return ControlError(error.status, error.body ?? error.status.reasonPhrase)
        }
        let path = request.uri.path
        let methods = routes.filter { $0.matches(path: path) }.map(\.method.rawValue)
        guard !methods.isEmpty else {
            return .notFound("No route \(request.method) \(path); docs/CONTROL-API.md lists the routes")
        }
        var notAllowed = ControlError(.methodNotAllowed, "\(path) takes \(methods.joined(separator: ", ")), not \(request.method)")
        notAllowed.headers[.allow] = methods.joined(separator: ", ")
        return notAllowed
    }
}
