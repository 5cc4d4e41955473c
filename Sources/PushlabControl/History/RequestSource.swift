import PushlabCore
import PushlabStore

/// Where the control API reads APNs requests from: the store when there is one (numbered
/// across runs), otherwise the request log's ring of the newest entries.
protocol RequestSource: Sendable {
    /// Newest first, optionally filtered; at most `limit`.
    func readRequests(deviceToken: String?, status: Int?, reason: APNsErrorReason?, limit: Int) throws(ControlError) -> [RequestLog.Entry]
}

extension PushlabStore: RequestSource {
    func readRequests(deviceToken: String?, status: Int?, reason: APNsErrorReason?, limit: Int) throws(ControlError) -> [RequestLog.Entry] {
        do {
            return try requests(deviceToken: deviceToken, status: status, reason: reason?.rawValue, limit: limit)
        } catch {
            throw ControlError(error)
        }
    }
}

extension RequestLog: RequestSource {
    func readRequests(deviceToken: String?, status: Int?, reason: APNsErrorReason?, limit: Int) throws(ControlError) -> [RequestLog.Entry] {
        let wanted = deviceToken.map(DeviceTokenKey.init)
        return entries(limit: limit) { entry in
            (wanted == nil || entry.deviceTokenKey == wanted)
                && (status == nil || entry.status == status)
                && (reason == nil || entry.reason == reason)
        }
    }
}
