import PushlabCore

/// The requests of Apple's broadcast push (A12) and channel management (A10) APIs.
extension APNsClientRequest {
    /// `POST /4/broadcasts/apps/<bundle>`: a Live Activity update to every subscriber of a channel.
    public static func broadcast(
        bundleID: String, channelID: String, payload: [UInt8], pushType: String = "liveactivity", priority: Int? = nil,
        expiration: Int64? = nil, requestID: String? = nil, providerToken: String? = nil
    ) -> APNsClientRequest {
        var headers = common(providerToken: providerToken, requestID: requestID)
        headers.append(.init("apns-channel-id", channelID))
        headers.append(.init("apns-push-type", pushType))
        if let priority { headers.append(.init("apns-priority", String(priority))) }
        if let expiration { headers.append(.init("apns-expiration", String(expiration))) }
        return APNsClientRequest(method: "POST", path: "/4/broadcasts/apps/\(bundleID)", headers: headers, body: payload)
    }

    /// `POST /1/apps/<bundle>/channels`: answered 201 with the new id in `apns-channel-id`.
    public static func createChannel(
        bundleID: String, storagePolicy: BroadcastChannel.StoragePolicy, requestID: String? = nil, providerToken: String? = nil
    ) -> APNsClientRequest {
        let body = #"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#
        return APNsClientRequest(
            method: "POST", path: channelsPath(bundleID), headers: common(providerToken: providerToken, requestID: requestID), body: Array(body.utf8)
        )
    }

    /// `GET /1/apps/<bundle>/channels`: the channel's configuration.
    public static func readChannel(bundleID: String, channelID: String, requestID: String? = nil, providerToken: String? = nil) -> APNsClientRequest {
        APNsClientRequest(method: "GET", path: channelsPath(bundleID), headers: common(providerToken: providerToken, requestID: requestID) + [.init("apns-channel-id", channelID)])
    }

    /// `DELETE /1/apps/<bundle>/channels`: answered 204.
    public static func deleteChannel(bundleID: String, channelID: String, requestID: String? = nil, providerToken: String? = nil) -> APNsClientRequest {
        APNsClientRequest(method: "DELETE", path: channelsPath(bundleID), headers: common(providerToken: providerToken, requestID: requestID) + [.init("apns-channel-id", channelID)])
    }

    /// `GET /1/apps/<bundle>/all-channels`: `{"channels": [ids]}`.
    public static func listChannels(bundleID: String, requestID: String? = nil, providerToken: String? = nil) -> APNsClientRequest {
        APNsClientRequest(method: "GET", path: "/1/apps/\(bundleID)/all-channels", headers: common(providerToken: providerToken, requestID: requestID))
    }

    private static func channelsPath(_ bundleID: String) -> String { "/1/apps/\(bundleID)/channels" }

    private static func common(providerToken: String?, requestID: String?) -> [Header] {
        var headers: [Header] = []
        if let providerToken { headers.append(.init("authorization", "bearer \(providerToken)")) }
        if let requestID { headers.append(.init("apns-request-id", requestID)) }
        return headers
    }
}
