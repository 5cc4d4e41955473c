import Hummingbird

/// Lets through only requests that carry `authorization: Bearer <token>`: a control API that
/// listens beyond this machine can change the world, so it answers 401 to anyone else. The
/// comparison takes the same time whatever the first wrong byte.
struct ControlTokenMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.isOpen(request) || Self.matches(request.headers[.authorization], token: token) else {
            var refusal = ControlError(.unauthorized, "This control API needs authorization: Bearer <token> (the token pushlab serve was given with --control-token or PUSHLAB_CONTROL_TOKEN)")
            refusal.headers[.wwwAuthenticate] = #"Bearer realm="pushlab""#
            throw refusal
        }
        return try await next(request, context)
    }

    /// What needs no token: the stand-in backend answers the simulated apps, which carry their
    /// own headers; the dashboard's files hold no data (the page asks for the token and sends it
    /// with every request of its own).
    static func isOpen(_ request: Request) -> Bool {
        let path = request.uri.path
        if path.hasPrefix("/stand-in/") { return true }
        return request.method == .get && (path == "/" || path.hasPrefix("/dashboard/"))
    }

    static func matches(_ header: String?, token: String) -> Bool {
        guard let header, header.utf8.count > 7, header.prefix(7).lowercased() == "bearer " else { return false }
        let given = Array(header.utf8.dropFirst(7)), wanted = Array(token.utf8)
        var difference = given.count ^ wanted.count
        for index in wanted.indices { difference |= Int(wanted[index] ^ (index < given.count ? given[index] : 0)) }
        return difference == 0
    }
}
