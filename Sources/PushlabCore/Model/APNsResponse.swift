/// What to answer on a stream. Success is `:status 200` and `apns-id` with no body; a failure
/// adds `content-type: application/json` and a `{"reason":…}` body (with `timestamp` for 410).
/// The broadcast and channel management API (A10, A12) answer with `apns-request-id` instead,
/// some with `apns-channel-id`, a 201 or 204, or a JSON body on success.
public struct APNsResponse: Sendable, Equatable, CarriesAPNsID {
    /// The header that carries `apnsIDValue`.
    public enum IDHeader: Sendable, Equatable {
        /// The device API's `apns-id`.
        case apnsID
        /// The broadcast and channel management API's `apns-request-id`.
        case requestID

        public var name: String { self == .apnsID ? "apns-id" : "apns-request-id" }
    }

    public var status: Int
    public var apnsIDValue: APNsID
    /// Sent on development responses only, in lower case, as Apple does.
    public var uniqueIDValue: APNsID?
    public var reason: APNsErrorReason?
    /// Milliseconds since 1970, for 410 answers.
    public var timestamp: Int64?
    public var idHeader = IDHeader.apnsID
    /// `apns-channel-id`: the channel a create made.
    public var channelID: String?
    /// A success's JSON body: a channel's configuration, an app's channels.
    public var content: [UInt8]?

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

    /// A broadcast or channel management success: 200 (with `content`), 201 (with `channelID`) or 204.
    public static func success(status: Int, requestID: APNsID, channelID: String? = nil, content: [UInt8]? = nil) -> APNsResponse {
        APNsResponse(
            status: status, apnsIDValue: requestID, uniqueIDValue: nil, reason: nil, timestamp: nil,
            idHeader: .requestID, channelID: channelID, content: content
        )
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

    /// A broadcast or channel management failure, which names its request in `apns-request-id`.
    public static func failure(_ reason: APNsErrorReason, requestID: APNsID) -> APNsResponse {
        var response = failure(reason, apnsID: requestID)
        response.idHeader = .requestID
        return response
    }

    /// The JSON body: a failure's, exactly as APNs writes it, or a success's `content`.
    public var body: [UInt8]? {
        guard let reason else { return content }
        var json = #"{"reason":""# + reason.rawValue + "\""
        if let timestamp { json += #","timestamp":"# + String(timestamp) }
        json += "}"
        return Array(json.utf8)
    }
}
