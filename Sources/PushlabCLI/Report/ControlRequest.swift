import Foundation
import PushlabCore

/// A control API call of the `report` and `latency` commands: the JSON answer, or the API's own
/// error message as a readable failure.
enum ControlRequest {
    static func json(_ method: String, _ control: String, _ path: String, body: String? = nil) async throws -> JSONValue {
        guard let url = URL(string: control + path) else { throw CLIFailure("--control must be a URL, not \(control)") }
        let data: Data
        let status: Int
        do {
            (data, status) = try await ControlAPIGet.request(method, url, body: body)
        } catch {
            throw CLIFailure("The control API at \(control) does not answer: is pushlab serve running? (\(error))")
        }
        let answer = try? JSONParser.parse(String(decoding: data, as: UTF8.self))
        guard status == 200, let answer else {
            throw CLIFailure(answer?["error"]?.stringValue ?? "The control API answered \(status) to \(method) \(path)")
        }
        return answer
    }

    /// `value` percent-encoded for a query string.
    static func query(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))) ?? value
    }
}
