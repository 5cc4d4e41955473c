import PushlabCore
import Yams

extension Node {
    /// The node as JSON, with YAML's own typing of scalars (`10` a number, `"10"` a string,
    /// `true` a boolean, `~` null). YAML's `.inf` and `.nan` have no JSON number, so they stay
    /// the text they are. Mapping keys keep their order, so a payload is sent as written.
    public var jsonValue: JSONValue {
        switch self {
        case .scalar(let scalar):
            guard scalar.style == .plain else { return .string(scalar.string) }
            if null != nil { return .null }
            if let flag = bool { return .bool(flag) }
            if let number = int { return .number(Double(number)) }
            if let number = float, number.isFinite { return .number(number) }
            return .string(scalar.string)
        case .mapping(let mapping):
            return .object(mapping.map { (key: $0.key.string ?? "", value: $0.value.jsonValue) })
        case .sequence(let sequence):
            return .array(sequence.map(\.jsonValue))
        case .alias:
            return .null
        }
    }
}
