import PushlabCore

/// The fields a JSON body may hold, so that a misspelled field is a 400 naming it instead of a
/// setting silently ignored.
indirect enum BodyShape: Sendable {
    /// An object with these fields (each with its own shape). A value of another type is left
    /// to the decoder, which names the type it expected.
    case object([String: BodyShape])
    /// An array whose elements have this shape.
    case list(BodyShape)
    /// Anything (a leaf, or free-form JSON such as `userInfo`).
    case any

    static func fields(_ names: [String], _ nested: [String: BodyShape] = [:]) -> BodyShape {
        .object(Dictionary(uniqueKeysWithValues: names.map { ($0, nested[$0] ?? .any) }))
    }

    /// Each field of `value` that is null, as `path.field`: a body leaves a field out to take its
    /// default, and no field takes null (free-form JSON such as `userInfo` may hold nulls inside).
    func nullFields(in value: JSONValue, path: String = "") -> [String] {
        switch (self, value) {
        case (.list(let element), .array(let items)):
            return items.enumerated().flatMap { element.nullFields(in: $1, path: "\(path)[\($0)]") }
        case (.object(let allowed), .object(let members)):
            return members.flatMap { member -> [String] in
                let fieldPath = path.isEmpty ? member.key : "\(path).\(member.key)"
                if member.value == .null { return [fieldPath] }
                return allowed[member.key]?.nullFields(in: member.value, path: fieldPath) ?? []
            }
        default:
            return []
        }
    }

    /// Each field `value` has that the shape does not allow, as `path.field (allowed: …)`.
    func unknownFields(in value: JSONValue, path: String = "") -> [String] {
        switch (self, value) {
        case (.any, _):
            return []
        case (.list(let element), .array(let items)):
            return items.enumerated().flatMap { element.unknownFields(in: $1, path: "\(path)[\($0)]") }
        case (.object(let allowed), .object(let members)):
            var unknown: [String] = []
            for member in members {
                let fieldPath = path.isEmpty ? member.key : "\(path).\(member.key)"
                if let shape = allowed[member.key] {
                    unknown += shape.unknownFields(in: member.value, path: fieldPath)
                } else {
                    unknown.append("\(fieldPath) (allowed: \(allowed.keys.sorted().joined(separator: ", ")))")
                }
            }
            return unknown
        default:
            return []
        }
    }
}
