/// Lets models that carry payloads (the simulator's devices) be saved and loaded. A value is
/// coded as its JSON text: Codable's keyed containers do not keep key order, and a payload
/// must come back exactly as it was sent.
extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try JSONParser.parse(text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
