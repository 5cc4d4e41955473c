import Foundation
import PushlabCore

/// The repository's OpenAPI document, read for the tests that hold it to the code.
struct OpenAPIDocument {
    static var fileURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/PushlabControl/Embedded/openapi.json")
    }

    static func fileText() throws -> String {
        try String(contentsOf: fileURL, encoding: .utf8)
    }

    let json: JSONValue

    init() throws {
        json = try JSONParser.parse(Array(Self.fileText().utf8))
    }

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Every operation as `METHOD /path` (`GET /v1/devices/{id}`).
    var operations: Set<String> {
        var found = Set<String>()
        for path in json["paths"]?.objectKeys ?? [] {
            for method in json["paths"]?[path]?.objectKeys ?? [] where Self.methods.contains(method) {
                found.insert("\(method.uppercased()) \(path)")
            }
        }
        return found
    }

    func operation(_ method: String, _ path: String) -> JSONValue? {
        json["paths"]?[path]?[method.lowercased()]
    }

    /// Whether an operation (`GET /`) is marked `"x-pushlab-ignores-query": true`: no JSON API
    /// (the dashboard's files, the stand-in backend), its query is the page's or the app's.
    func ignoresQuery(_ operation: String) -> Bool {
        let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
        return self.operation(parts[0], parts[1])?["x-pushlab-ignores-query"] == .bool(true)
    }

    /// A `$ref` followed (within this document) to what it names.
    func resolve(_ value: JSONValue?) -> JSONValue? {
        guard let reference = value?["$ref"]?.stringValue, reference.hasPrefix("#/") else { return value }
        var target: JSONValue? = json
        for part in reference.dropFirst(2).split(separator: "/") { target = target?[String(part)] }
        return resolve(target)
    }

    func schema(_ name: String) -> JSONValue? {
        json["components"]?["schemas"]?[name]
    }

    /// The `enum` of a named schema, in order.
    func enumValues(_ name: String) -> [String] {
        guard case .array(let values)? = schema(name)?["enum"] else { return [] }
        return values.compactMap(\.stringValue)
    }

    /// The properties an object schema allows, gathering the branches of `oneOf` and `anyOf`
    /// (each a variant of the same body); nil for a schema that is not an object.
    func propertyNames(_ schema: JSONValue?) -> Set<String>? {
        guard let schema = resolve(schema) else { return nil }
        var names = Set(schema["properties"]?.objectKeys ?? [])
        var isObject = schema["type"]?.stringValue == "object"
        for combinator in ["oneOf", "anyOf"] {
            guard case .array(let branches)? = schema[combinator] else { continue }
            for branch in branches {
                if let branchNames = propertyNames(branch) {
                    names.formUnion(branchNames)
                    isObject = true
                }
            }
        }
        return isObject ? names : nil
    }

    /// The schema of property `name` in `schema` (or in the branch of `oneOf`/`anyOf` that has it).
    func property(_ name: String, of schema: JSONValue?) -> JSONValue? {
        guard let schema = resolve(schema) else { return nil }
        if let found = schema["properties"]?[name] { return resolve(found) }
        for combinator in ["oneOf", "anyOf"] {
            guard case .array(let branches)? = schema[combinator] else { continue }
            for branch in branches {
                if let found = property(name, of: branch) { return found }
            }
        }
        return nil
    }

    /// The items of an array schema, or of the array branch of a `oneOf`/`anyOf`.
    func items(of schema: JSONValue?) -> JSONValue? {
        guard let schema = resolve(schema) else { return nil }
        if let items = schema["items"] { return resolve(items) }
        for combinator in ["oneOf", "anyOf"] {
            guard case .array(let branches)? = schema[combinator] else { continue }
            for branch in branches {
                if let found = items(of: branch) { return found }
            }
        }
        return nil
    }
}
