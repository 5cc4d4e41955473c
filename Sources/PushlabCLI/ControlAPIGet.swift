import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A GET to the control API as the CLI's readers make it: with `PUSHLAB_CONTROL_TOKEN` as a
/// bearer token when it is set (a server started with `--control-token` answers 401 without it).
enum ControlAPIGet {
    static let tokenVariable = "PUSHLAB_CONTROL_TOKEN"

    static var token: String? {
        ProcessInfo.processInfo.environment[tokenVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The body and the status (0 when the answer is not HTTP).
    static func data(from url: URL) async throws -> (Data, Int) {
        var request = URLRequest(url: url)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }
}
