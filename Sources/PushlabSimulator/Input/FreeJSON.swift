import PushlabCore

/// Free-form JSON inside a spec (a Live Activity's attributes and content state), read from
/// whatever decoder reads the spec: JSON from the control API, YAML from a scenario file.
/// Keyed containers do not keep key order; the control API puts back the order sent.
public struct FreeJSON: Decodable, Sendable {
    public var value: JSONValue

    public init(_ value: JSONValue) {
        self.value = value
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            value = .object(try object.allKeys.map { key in (key.stringValue, try object.decode(FreeJSON.self, forKey: key).value) })
            return
        }
        if var list = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !list.isAtEnd { values.append(try list.decode(FreeJSON.self).value) }
            value = .array(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let flag = try? single.decode(Bool.self) {
            value = .bool(flag)
        } else if let number = try? single.decode(Double.self) {
            value = .number(number)
        } else {
            value = .string(try single.decode(String.self))
        }
    }
}
