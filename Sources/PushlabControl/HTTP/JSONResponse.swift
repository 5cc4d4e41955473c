import Hummingbird
import PushlabCore

/// A JSON answer: the value written compactly (keys in the order given), then a newline.
struct JSONResponse {
    var status: HTTPResponse.Status
    var json: JSONValue

    init(status: HTTPResponse.Status = .ok, _ json: JSONValue) {
        self.status = status
        self.json = json
    }

    var response: Response {
        var writer = JSONWriter()
        writer.value(json)
        var buffer = ByteBuffer()
        buffer.writeBytes(writer.bytes)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: buffer)
        )
    }
}

/// Builds a JSON object field by field; absent values are left out, never written as null
/// (as observations do).
struct JSONFields {
    private(set) var members: [(key: String, value: JSONValue)] = []

    init() {}

    mutating func add(_ key: String, _ value: String?) {
        if let value { members.append((key, .string(value))) }
    }

    mutating func add(_ key: String, _ value: Int?) {
        if let value { members.append((key, .number(Double(value)))) }
    }

    mutating func add(_ key: String, _ value: Int64?) {
        if let value { members.append((key, .number(Double(value)))) }
    }

    mutating func add(_ key: String, _ value: Double?) {
        if let value { members.append((key, .number(value))) }
    }

    mutating func add(_ key: String, _ value: Bool?) {
        if let value { members.append((key, .bool(value))) }
    }

    mutating func add(_ key: String, _ value: JSONValue?) {
        if let value { members.append((key, value)) }
    }

    mutating func add(_ key: String, strings: [String]) {
        members.append((key, .array(strings.map(JSONValue.string))))
    }

    /// `key` as ISO 8601 with milliseconds and `keyMs` as epoch milliseconds, as observations
    /// write `time` and `timeMs`.
    mutating func addTime(_ key: String, _ time: EpochMilliseconds?) {
        guard let time else { return }
        add(key, ISO8601Milliseconds.format(time))
        add(key + "Ms", time)
    }

    var json: JSONValue { .object(members) }
}
