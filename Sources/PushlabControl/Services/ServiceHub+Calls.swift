import Foundation
import PushlabCore
import PushlabOpenSSL
import PushlabServices
import PushlabSimulator

/// Calls to the services' APIs on an app's behalf: the control API's (`POST /v1/services/…/call`)
/// and so the scenarios' way in, without HTTPS. The app's backend adds its credentials: JPush's
/// HTTP Basic appKey and masterSecret, or a GeTui token (made once, and again after a 10001).
extension ServiceHub {
    public func call(_ service: ThirdPartySDK.Service, app: String, method: String, path: String, body: [UInt8]) async throws(ServiceCallError) -> ServiceHTTPResponse {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        switch service {
        case .jpush:
            guard let entry = apps.jpush.first(where: { $0.appKey == app }) else { throw ServiceCallError("JPush has no app with appKey \(app)") }
            let full = trimmed.hasPrefix("v3/") ? "/" + trimmed : "/v3/" + trimmed
            let (route, query) = Self.split(full)
            let authorization = BasicAuthorization.header(user: entry.appKey, password: entry.masterSecret)
            return await jpush(ServiceHTTPRequest(method: method, path: route, query: query, headers: ["authorization": authorization], body: body))
        case .getui:
            guard let entry = apps.getui.first(where: { $0.app.appID == app }) else { throw ServiceCallError("GeTui has no app with appId \(app)") }
            let prefix = "v2/\(app)/"
            let full = "/" + (trimmed.hasPrefix(prefix) ? trimmed : prefix + trimmed)
            let (route, query) = Self.split(full)
            for attempt in 0..<2 {
                let token = try token(for: entry.app, fresh: attempt > 0)
                let answer = await getui(ServiceHTTPRequest(method: method, path: route, query: query, headers: ["token": token], body: body))
                if answer.status == GeTuiCode.tokenInvalid.httpStatus, answer.body.contains("\(GeTuiCode.tokenInvalid.rawValue)") { continue }
                return answer
            }
            throw ServiceCallError("GeTui refused every token made for \(app)")
        }
    }

    private func token(for app: GeTuiApp, fresh: Bool) throws(ServiceCallError) -> String {
        let time = now
        let result: Result<String, GeTuiError> = state.withLock { state in
            if !fresh, let kept = state.backendTokens[app.appID] { return .success(kept) }
            let stamp = String(time)
            let sign = Digest.sha256(Array((app.appKey + stamp + app.masterSecret).utf8)).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
            let body = JSONValue.object([("sign", .string(sign)), ("timestamp", .string(stamp)), ("appkey", .string(app.appKey))]).description
            switch state.getui.tokens[app.appID]!.authenticate(Array(body.utf8), app: app, now: time, sha256: { Digest.sha256($0) }) {
            case .success(let issued):
                state.backendTokens[app.appID] = issued.token
                return .success(issued.token)
            case .failure(let error):
                return .failure(error)
            }
        }
        switch result {
        case .success(let token): return token
        case .failure(let error): throw ServiceCallError("GeTui refused the app's auth: \(error.code.rawValue) \(error.message)")
        }
    }

    private static func split(_ path: String) -> (String, [String: String]) {
        guard let mark = path.firstIndex(of: "?") else { return (path, [:]) }
        var query: [String: String] = [:]
        for pair in path[path.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            query[String(parts[0])] = parts.count > 1 ? String(parts[1]).removingPercentEncoding ?? String(parts[1]) : ""
        }
        return (String(path[..<mark]), query)
    }
}

public struct ServiceCallError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
