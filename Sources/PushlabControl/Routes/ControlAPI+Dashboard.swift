import Hummingbird

/// The dashboard: a page that draws the simulated phones and drives them through the routes
/// below it, as a test would. `docs/DASHBOARD.md` shows it.
extension ControlAPI {
    var dashboardRoutes: [Route] {
        [
            Route(.get, "/", dashboardPage),
            Route(.get, "/dashboard/:file", dashboardFile),
        ]
    }

    /// `GET /`: the page. Query parameters are the page's own business and are not checked.
    @Sendable func dashboardPage(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try serve("index.html", request)
    }

    /// `GET /dashboard/{file}`: its script, style and pictures.
    @Sendable func dashboardFile(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try serve(try context.pathParameter("file"), request)
    }

    private func serve(_ name: String, _ request: Request) throws -> Response {
        guard let file = DashboardFile.byName[name] else {
            throw ControlError.notFound("No dashboard file \(name)")
        }
        var headers: HTTPFields = [
            .contentType: file.contentType, .eTag: file.etag, .cacheControl: "no-cache", .init("X-Content-Type-Options")!: "nosniff",
        ]
        if file.contentType.hasPrefix("text/html") {
            headers[.contentSecurityPolicy] = DashboardFile.contentSecurityPolicy
            headers[.init("Referrer-Policy")!] = "no-referrer"
        }
        // The browser names the versions it holds; ours have no spaces to trim.
        if let held = request.headers[.ifNoneMatch], held.split(separator: ",").contains(where: { $0.filter { $0 != " " } == file.etag }) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.body))
    }
}
