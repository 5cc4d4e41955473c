/// What to answer on a stream. Success is `:status 200` and `apns-id` with no body; a failure
/// adds `content-type: application/json` and a `{"reason":…}` body (with `timestamp` for 410).
public struct APNsResponse: Sendable, Equatable, CarriesAPNsID {
    public var status: Int
    public var apnsIDValue: APNsID
    /// Sent on development responses only, in lower case, as Apple does.
    public var uniqueIDValue: APNsID?
    public var reason: APNsErrorReason?
    /// Milliseconds since 1970, for 410 answers.
    public var timestamp: Int64?

    public var uniqueID: String? {
        get { uniqueIDValue?.text }
        set { uniqueIDValue = newValue.map(APNsID.init) }
    }

    public static func success(apnsID: APNsID, uniqueID: APNsID? = nil) -> APNsResponse {
        APNsResponse(status: 200, apnsIDValue: apnsID, uniqueIDValue: uniqueID, reason: nil, timestamp: nil)
    }

    public static func success(apnsID: String, uniqueID: String? = nil) -> APNsResponse {
        success(apnsID: APNsID(apnsID), uniqueID: uniqueID.map(APNsID.init))
    }

    public static func failure(_ reason: APNsErrorReason, apnsID: APNsID, uniqueID: APNsID? = nil, timestamp: Int64? = nil) -> APNsResponse {
        APNsResponse(
            status: reason.status, apnsIDValue: apnsID, uniqueIDValue: uniqueID, reason: reason,
            timestamp: reason.carriesTimestamp ? (timestamp ?? 0) : nil
        )
    }

    public static func failure(_ reason: APNsErrorReason, apnsID: String, uniqueID: String? = nil, timestamp: Int64? = nil) -> APNsResponse {
        failure(reason, apnsID: APNsID(apnsID), uniqueID: uniqueID.map(APNsID.init), timestamp: timestamp)
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
