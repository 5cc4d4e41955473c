import Hummingbird
import HummingbirdTesting
@testable import PushlabControl
import PushlabCore
import Testing

@Suite("GET /openapi.json and the routes it describes")
struct OpenAPIRouteTests {
    @Test func theServedDocumentIsTheRepositoryFile() async throws {
        let h = try ControlHarness()
        let file = try OpenAPIDocument.fileText()
        try await h.application.test(.router) { client in
            let answer = try await client.call(.get, "/openapi.json")
            #expect(answer.status == 200)
            #expect(answer.headers[.contentType] == "application/json; charset=utf-8")
            #expect(answer.text == file, "the binary serves Embedded/openapi.json as it is in the repository")
            #expect(answer["openapi"]?.stringValue == "3.1.0")
            expectError(try await client.call(.get, "/openapi.json?format=yaml"), 400, containing: "Unknown query parameter format")
        }
    }

    /// `/v1/devices/:id` as OpenAPI writes it (`/v1/devices/{id}`); the stand-in's `**` is `{path}`.
    static func openAPIPath(_ route: Route) -> String {
        "/" + route.path.split(separator: "/").map { segment in
            segment == "**" ? "{path}" : segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
        }.joined(separator: "/")
    }

    @Test func everyRouteIsDescribedAndEveryDescribedOperationIsARoute() throws {
        let h = try ControlHarness()
        let routes = Set(h.api.routes.map { "\($0.method.rawValue) \(Self.openAPIPath($0))" })
        let described = try OpenAPIDocument().operations
        #expect(routes.count == h.api.routes.count, "no route is registered twice")
        #expect(routes.subtracting(described).sorted() == [], "routes the document lacks")
        #expect(described.subtracting(routes).sorted() == [], "operations no route serves")
        #expect(described.contains("GET /openapi.json"))
    }

    @Test func everyDocumentedQueryParameterIsTakenAndNoOtherIs() async throws {
        let h = try ControlHarness()
        let document = try OpenAPIDocument()
        // The event stream never ends; the operations that ignore the query are the next test's.
        let gets = document.operations.filter { $0.hasPrefix("GET ") && $0 != "GET /v1/events" && !document.ignoresQuery($0) }
        #expect(gets.count >= 15)
        try await h.application.test(.router) { client in
            for operation in gets.sorted() {
                let path = String(operation.dropFirst(4))
                    .replacingOccurrences(of: "{id}", with: ControlHarness.phone)
                    .replacingOccurrences(of: "{bundleId}", with: ControlHarness.app)
                let parameters = (document.operation("GET", path: operation)?["parameters"]?.array ?? []).compactMap(document.resolve)
                for parameter in parameters where parameter["in"]?.stringValue == "query" {
                    let name = parameter["name"]?.stringValue ?? ""
                    let answer = try await client.call(.get, "\(path)?\(name)=\(Self.validValue(parameter["schema"], in: document))")
                    #expect(answer.status == 200, "\(operation) takes \(name): \(answer.text)")
                }
                let unknown = try await client.call(.get, "\(path)?notAParameter=1")
                expectError(unknown, 400, containing: "Unknown query parameter notAParameter")
            }
        }
    }

    /// The operations that leave the query alone are exactly the dashboard's and the stand-in's,
    /// and they answer as if there was none: no JSON route can be let off the check above by
    /// marking it.
    @Test func onlyTheOperationsMarkedSoIgnoreTheQuery() async throws {
        let h = try ControlHarness()
        let document = try OpenAPIDocument()
        let marked = document.operations.filter(document.ignoresQuery).sorted()
        #expect(marked == [
            "DELETE /stand-in/{path}", "GET /", "GET /dashboard/{file}", "GET /stand-in/{path}", "PATCH /stand-in/{path}",
            "POST /stand-in/{path}", "PUT /stand-in/{path}",
        ])
        try await h.application.test(.router) { client in
            for operation in marked {
                let (method, template) = OpenAPISchemaTests.split(operation)
                let path = template.replacingOccurrences(of: "{file}", with: "main.js").replacingOccurrences(of: "{path}", with: "devices")
                let answer = try await client.call(try #require(HTTPRequest.Method(method)), "\(path)?notAParameter=1&notAParameter=2")
                #expect(answer.status == 200, "\(operation): \(answer.text)")
            }
        }
    }

    /// A value the parameter's schema allows: its default, its first enum value, or its minimum.
    static func validValue(_ schema: JSONValue?, in document: OpenAPIDocument) -> String {
        guard let schema = document.resolve(schema) else { return "x" }
        if let value = schema["default"] { return value.integerValue.map(String.init) ?? value.stringValue ?? "x" }
        if let first = schema["enum"]?.array.first { return first.stringValue ?? "x" }
        if let minimum = schema["minimum"]?.integerValue { return String(minimum) }
        return "x"
    }
}

extension OpenAPIDocument {
    func operation(_ method: String, path operation: String) -> JSONValue? {
        self.operation(method, String(operation.drop { $0 != "/" }))
    }
}
