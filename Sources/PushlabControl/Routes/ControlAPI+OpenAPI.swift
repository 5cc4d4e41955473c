import Hummingbird

/// The OpenAPI 3.1 description of every route, as `Embedded/openapi.json` has it.
extension ControlAPI {
    var openAPIRoutes: [Route] {
        [Route(.get, "/openapi.json", serveOpenAPIDocument)]
    }

    /// The document's text, compiled into the binary.
    static let openAPIDocument = EmbeddedFiles.byPath["openapi.json"] ?? ""

    @Sendable func serveOpenAPIDocument(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: Self.openAPIDocument))
        )
    }
}
