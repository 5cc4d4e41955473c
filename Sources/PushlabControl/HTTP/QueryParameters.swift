import Hummingbird

/// A request's query parameters, read by name with readable 400s; a parameter the route does
/// not know is refused (a misspelled filter would otherwise return everything), and so is one
/// given twice (which of its values would count?). An empty value is the same as none.
struct QueryParameters {
    private let values: [String: String]

    init(_ request: Request, allowed: [String]) throws(ControlError) {
        var values: [String: String] = [:]
        for (key, value) in request.uri.queryParameters {
            let name = String(key)
            guard allowed.contains(name) else {
                let choices = allowed.isEmpty ? "this route takes none" : "allowed: \(allowed.joined(separator: ", "))"
                throw .invalid("Unknown query parameter \(name) (\(choices))")
            }
            guard values.updateValue(String(value), forKey: name) == nil else {
                throw .invalid("Query parameter \(name) is given twice")
            }
        }
        self.values = values
    }

    func string(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    func integer(_ name: String, default defaultValue: Int? = nil, in range: ClosedRange<Int>) throws(ControlError) -> Int? {
        guard let text = string(name) else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw .invalid("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return value
    }

    /// A word that must be one of an enum's raw values; the message lists them.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type) throws(ControlError) -> T? where T.RawValue == String {
        guard let text = string(name) else { return nil }
        return try Choice.parse(text, as: type, field: name)
    }
}

/// A word that must be one of an enum's raw values.
enum Choice {
    static func parse<T: RawRepresentable & CaseIterable>(_ text: String, as type: T.Type, field: String) throws(ControlError) -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else {
            throw .invalid("\(field) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), not \(text)")
        }
        return value
    }
}
