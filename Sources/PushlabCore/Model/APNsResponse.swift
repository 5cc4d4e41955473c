/// What to answer on a stream. Success is `:status 200` and `apns-id` with no body; a failure
/// adds `content-type: application/json` and a `{"reason":…}` body (with `timestamp` for 410).
public struct APNsResponse: Sendable, Equatable {
    public var status: Int
    public var apnsID: String
    /// Sent on development responses only, in lower case, as Apple does.
    public var uniqueID: String?
    public var reason: APNsErrorReason?
    /// Milliseconds since 1970, for 410 answers.
    public var timestamp: Int64?

    public static func success(apnsID: String, uniqueID: String? = nil) -> APNsResponse {
        APNsResponse(status: 200, apnsID: apnsID, uniqueID: uniqueID, reason: nil, timestamp: nil)
    }

    public static func failure(_ reason: APNsErrorReason, apnsID: String, uniqueID: String? = nil, timestamp: Int64? = nil) -> APNsResponse {
        APNsResponse(
            status: reason.status, apnsID: apnsID, uniqueID: uniqueID, reason: reason,
            timestamp: reason.carriesTimestamp ? (timestamp ?? 0) : nil
        )
    }

    /// The JSON body of a failure, exactly as APNs writes it; nil on success.
    public var body: [UInt8]? {
        guard let reason else { return nil }
        var json = #"{"reason":""# + reason.rawValue + "\""
        if let timestamp { json += #","timestamp":"# + String(timestamp) }
        json += "}"
        return Array(json.utf8)
    }
}
