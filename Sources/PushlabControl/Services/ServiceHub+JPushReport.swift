import Foundation
import PushlabCore
import PushlabServices

/// JPush's report API (report.jpush.cn/v3, docs/SERVICES.md): each message's figures, each
/// phone's delivery status, and the app's user statistics.
extension ServiceHub {
    func report(_ request: ServiceHTTPRequest, path: [String], app: JPushApp) -> ServiceHTTPResponse {
        switch (request.method, path) {
        case ("GET", ["received"]), ("GET", ["received", "detail"]), ("GET", ["messages"]), ("GET", ["messages", "detail"]):
            guard let text = request.query["msg_ids"], !text.isEmpty else { return Self.failure(JPushError(.missingParameter, "msg_ids is required")) }
            let ids = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard ids.count <= 100, ids.allSatisfy({ Int64($0) != nil }) else {
                return Self.failure(JPushError(.invalidParameter, "msg_ids must be at most 100 message ids, separated by commas"))
            }
            let rows: [JSONValue] = state.withLock { state in
                ids.map { id in
                    let counts = state.log.messages.contains { $0.service == .jpush && $0.id == id && $0.appKey == app.appKey }
                        ? state.jpush.counts(of: Int64(id)!) : nil
                    return Self.reportRow(id: id, counts: counts, shape: path)
                }
            }
            return .json(200, .array(rows))
        case ("POST", ["status", "message"]):
            return deliveryStatus(request, app: app)
        case ("GET", ["users"]):
            let time = now
            switch JPushUsersQuery.parse(timeUnit: request.query["time_unit"], start: request.query["start"], duration: request.query["duration"], now: time) {
            case .failure(let error): return Self.failure(error)
            case .success(let query): return .json(200, state.withLock { $0.jpush.users.report(appKey: app.appKey, query, now: time) }.json)
            }
        default:
            return Self.failure(JPushError(.reportSystemError, "No such report API: \(request.method) \(request.path)"), status: 404)
        }
    }

    /// `POST /v3/status/message`: for each registration id, 0 delivered, 1 not delivered, 2 not
    /// of this app, 3 not a target of the message [DOC].
    private func deliveryStatus(_ request: ServiceHTTPRequest, app: JPushApp) -> ServiceHTTPResponse {
        guard let body = try? JSONParser.parse(request.body), let messageID = body["msg_id"]?.integerValue,
              case .array(let ids)? = body["registration_ids"], ids.count <= 1_000 else {
            return Self.failure(JPushError(.invalidParameter, "The body must be {\"msg_id\": …, \"registration_ids\": […]} (at most 1000 ids)"))
        }
        let members: [(key: String, value: JSONValue)] = state.withLock { state in
            let message = state.log.messages.last { $0.service == .jpush && $0.id == String(messageID) && $0.appKey == app.appKey }
            return ids.compactMap(\.stringValue).map { id in
                let status: Int
                if state.jpush.directory.devices[id]?.appKey != app.appKey {
                    status = 2
                } else if let row = message?.targets.first(where: { $0.id == id }) {
                    status = row.apns?.status == 200 || row.channel == .deliveredNow || row.channel == .handedOver ? 0 : 1
                } else {
                    status = 3
                }
                return (id, .object([("status", .number(Double(status)))]))
            }
        }
        return .json(200, .object(members))
    }

    /// One message's figures; every counter JPush has no data for is null [DOC]. Pushlab counts
    /// no `ios_apns_received` or clicks: JPush learns of them only from its SDK's reports (the
    /// Notification Service Extension SDK, the SDK's open report), which the simulated SDK does
    /// not make.
    private static func reportRow(id: String, counts: JPushMessageCounts?, shape: [String]) -> JSONValue {
        func number(_ value: Int?) -> JSONValue { value.map { .number(Double($0)) } ?? .null }
        let sent = number(counts?.apnsSent), messages = number(counts?.messagesReceived)
        switch shape {
        case ["received"]:
            return .object([("msg_id", .string(id)), ("android_received", .null), ("ios_apns_sent", sent), ("ios_apns_received", .null), ("ios_msg_received", messages), ("wp_mpns_sent", .null)])
        case ["received", "detail"]:
            return .object([
                ("msg_id", .string(id)), ("jpush_received", messages), ("android_pns_sent", .null), ("ios_apns_sent", sent), ("ios_apns_received", .null),
                ("ios_msg_received", messages), ("wp_mpns_sent", .null),
            ])
        case ["messages", "detail"]:
            // `jpush` counts JPush's own channel on Android; an iPhone's custom messages are
            // `msg_target`/`msg_received`. `msg_id` is a number here [DOC].
            let messageID = Int64(id)!
            return .object([
                ("msg_id", messageID <= 1 << 53 ? .number(Double(messageID)) : .string(id)), ("jpush", .null), ("android_pns", .null),
                ("ios", .object([
                    ("apns_target", number(counts?.apnsTarget)), ("apns_sent", sent), ("apns_received", .null), ("apns_click", .null),
                    ("msg_target", number(counts?.messageTarget)), ("msg_received", messages),
                ])),
                ("winphone", .null),
            ])
        default:
            return .object([
                ("msg_id", .string(id)),
                ("ios", .object([
                    ("apns_sent", sent), ("apns_target", number(counts?.apnsTarget)), ("apns_received", .null), ("click", .null),
                    ("target", number(counts?.messageTarget)), ("received", messages),
                ])),
            ])
        }
    }
}
