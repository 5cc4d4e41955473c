import PushlabCore
import Testing

/// Requests of the broadcast and channel management API (A10, A12), on the harness's connection.
extension Harness {
    static let mostRecentConfiguration = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
    static let noStorageConfiguration = #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#
    static let liveActivityUpdate = #"{"aps":{"timestamp":1767225600,"event":"update","content-state":{"score":1}}}"#

    /// Any request to the channel API: no `apns-topic`, a provider token in token mode.
    @discardableResult
    func channelAPI(
        _ method: String, _ path: String, channel: String? = nil, headers: [(String, String)] = [], body: String? = nil,
        omitAuthorization: Bool = false, authorization: String? = nil, authority: String? = nil
    ) -> APNsOutcome {
        var all = headers
        if let channel { all.append(("apns-channel-id", channel)) }
        return send(
            topic: nil, headers: all, body: body, method: method, path: path, authorization: authorization,
            omitAuthorization: omitAuthorization, authority: authority
        )
    }

    @discardableResult
    func createChannel(
        _ bundleID: String = TestWorld.app, configuration: String? = Harness.mostRecentConfiguration, headers: [(String, String)] = [],
        authority: String? = nil
    ) -> APNsOutcome {
        channelAPI("POST", "/1/apps/\(bundleID)/channels", headers: headers, body: configuration, authority: authority)
    }

    /// A new channel's id (the test fails without one).
    func newChannel(_ bundleID: String = TestWorld.app, configuration: String = Harness.mostRecentConfiguration, authority: String? = nil) throws -> String {
        let response = try #require(createChannel(bundleID, configuration: configuration, authority: authority).response)
        try #require(response.status == 201, "create answered \(response.status) \(response.reason?.rawValue ?? "")")
        return try #require(response.channelID)
    }

    @discardableResult
    func broadcast(
        _ bundleID: String = TestWorld.app, channel: String?, pushType: String? = "liveactivity", headers: [(String, String)] = [],
        body: String? = Harness.liveActivityUpdate, authority: String? = nil
    ) -> APNsOutcome {
        var all = headers
        if let pushType { all.append(("apns-push-type", pushType)) }
        return channelAPI("POST", "/4/broadcasts/apps/\(bundleID)", channel: channel, headers: all, body: body, authority: authority)
    }

    func text(_ outcome: APNsOutcome) -> String? {
        outcome.response?.body.map { String(decoding: $0, as: UTF8.self) }
    }
}
