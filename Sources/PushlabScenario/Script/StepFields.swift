import PushlabCore

/// Reads a step's mapping field by field, so that every problem names its place
/// (`steps[2].send.priority`) and a key nobody read is reported as unknown.
struct StepFields {
    let place: String
    private let members: [(key: String, value: JSONValue)]
    private var read: Set<String> = []

    init(_ value: JSONValue, place: String) throws(ScenarioScriptError) {
        guard case .object(let members) = value else {
            throw ScenarioScriptError("\(place) must be a mapping, not \(value)")
        }
        self.place = place
        self.members = members
    }

    var keys: [String] { members.map(\.key) }

    mutating func value(_ key: String) -> JSONValue? {
        read.insert(key)
        return members.first { $0.key == key }?.value
    }

    mutating func string(_ key: String) throws(ScenarioScriptError) -> String? {
        guard let value = value(key) else { return nil }
        switch value {
        case .string(let text): return text
        case .number, .bool: return value.description
        default: throw ScenarioScriptError("\(place).\(key) must be text, not \(value)")
        }
    }

    mutating func integer(_ key: String) throws(ScenarioScriptError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard let number = value.integerValue ?? value.stringValue.flatMap({ Int64($0) }) else {
            throw ScenarioScriptError("\(place).\(key) must be a whole number, not \(value)")
        }
        return number
    }

    mutating func bool(_ key: String) throws(ScenarioScriptError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw ScenarioScriptError("\(place).\(key) must be true or false, not \(value)") }
        return flag
    }

    mutating func nested(_ key: String) throws(ScenarioScriptError) -> StepFields? {
        guard let value = value(key) else { return nil }
        return try StepFields(value, place: "\(place).\(key)")
    }

    /// Everything not read yet, as a JSON object (a control API body).
    mutating func remainder() -> JSONValue {
        let rest = members.filter { !read.contains($0.key) }
        read.formUnion(rest.map(\.key))
        return .object(rest)
    }

    func checkAllRead() throws(ScenarioScriptError) {
        let unknown = members.map(\.key).filter { !read.contains($0) }
        if !unknown.isEmpty {
            throw ScenarioScriptError("\(place) has unknown keys: \(unknown.joined(separator: ", ")) (see docs/SCENARIOS.md, Steps)")
        }
    }
}

/// A problem in a scenario's `steps` or `clock`.
public struct ScenarioScriptError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
