import Foundation
import PushlabCore

/// Foundation's `JSONDecoder` reports a number that does not fit its field (a fraction or an
/// integer past 64 bits for an `Int`) as "The given data was not valid JSON.", naming no field.
/// The body is valid JSON (Pushlab's parser read it), so the field is found by trying: the first
/// number that, set to 0, lets the body decode is the one that did not fit.
enum UnfitNumber {
    static func field<Value: Decodable>(in json: JSONValue, decoding type: Value.Type) -> (path: String, value: Double)? {
        for (path, value, replaced) in candidates(json, path: "") {
            if (try? JSONDecoder().decode(type, from: Data(replaced.description.utf8))) != nil { return (path, value) }
        }
        return nil
    }

    /// The message for a number at `path` that does not fit.
    static func message(path: String, value: Double) -> String {
        value.rounded() == value
            ? "\(path) is out of range: a whole number from \(Int64.min) to \(Int64.max) is expected"
            : "\(path) must be a whole number, not \(value)"
    }

    /// Each number that is no 64-bit integer, with the document it is in set to 0 instead.
    private static func candidates(_ value: JSONValue, path: String) -> [(String, Double, JSONValue)] {
        switch value {
        case .number(let number):
            let fits = number.rounded() == number && number >= -0x1p63 && number < 0x1p63
            return fits ? [] : [(path, number, .number(0))]
        case .array(let items):
            return items.enumerated().flatMap { index, item in
                candidates(item, path: "\(path)[\(index)]").map { found in
                    var copy = items
                    copy[index] = found.2
                    return (found.0, found.1, JSONValue.array(copy))
                }
            }
        case .object(let members):
            return members.enumerated().flatMap { index, member in
                candidates(member.value, path: path.isEmpty ? member.key : "\(path).\(member.key)").map { found in
                    var copy = members
                    copy[index].value = found.2
                    return (found.0, found.1, JSONValue.object(copy))
                }
            }
        default:
            return []
        }
    }
}
