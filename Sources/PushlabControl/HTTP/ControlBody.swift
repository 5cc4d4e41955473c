import Foundation
import Hummingbird
import NIOCore
import PushlabCore
import PushlabScenario

/// A JSON request body a route accepts: decoded with `JSONDecoder`, after a check that it is a
/// JSON object holding only the fields of `shape`, none of them null.
protocol ControlBody: Decodable {
    static var shape: BodyShape { get }
    /// What the route expects, for the message when the body is missing or not an object.
    static var example: String { get }
}

/// A body as read: the decoded value and the parsed JSON (free-form fields such as `userInfo`
/// are taken from it, with their keys in the order sent).
struct DecodedBody<Value: ControlBody> {
    var value: Value
    var json: JSONValue
}

extension Request {
    /// The largest body a route reads.
    static let maximumBodySize = 1 << 20

    /// The whole body; a larger one than `maximumBodySize` is a 400.
    func collectLimitedBody() async throws -> ByteBuffer {
        var request = self
        do {
            return try await request.collectBody(upTo: Self.maximumBodySize)
        } catch where error is NIOTooManyBytesError || (error as? HTTPError)?.status == .contentTooLarge {
            throw ControlError.invalid("The body is larger than \(Self.maximumBodySize / 1024) KiB")
        }
    }

    /// Reads and decodes the body; every problem is a 400 that says what is wrong and where.
    func decode<Value: ControlBody>(_ type: Value.Type) async throws -> DecodedBody<Value> {
        let buffer = try await collectLimitedBody()
        let bytes = Array(buffer.readableBytesView)
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            throw ControlError.invalid("The body must be a JSON object, e.g. \(Value.example)")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw ControlError.invalid("The body is not JSON: \(error.description)")
        }
        guard json.isObject else {
            throw ControlError.invalid("The body must be a JSON object, e.g. \(Value.example)")
        }
        let nulls = Value.shape.nullFields(in: json)
        if !nulls.isEmpty {
            throw ControlError.invalid("Null field\(nulls.count == 1 ? "" : "s"): \(nulls.joined(separator: ", ")) (leave a field out to take its default)")
        }
        let unknown = Value.shape.unknownFields(in: json)
        if !unknown.isEmpty {
            throw ControlError.invalid("Unknown field\(unknown.count == 1 ? "" : "s"): \(unknown.joined(separator: "; "))")
        }
        do {
            return DecodedBody(value: try JSONDecoder().decode(Value.self, from: Data(bytes)), json: json)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
               let unfit = UnfitNumber.field(in: json, decoding: Value.self) {
                throw ControlError.invalid("The body is not valid: \(UnfitNumber.message(path: unfit.path, value: unfit.value))")
            }
            throw ControlError.invalid("The body is not valid: \(error.readableDescription)")
        }
    }
}

/// Accepts any JSON value while decoding; the value itself is read from `DecodedBody.json`,
/// which keeps its keys in order.
struct FreeFormJSON: Decodable {
    init(from decoder: any Decoder) throws {}
}
