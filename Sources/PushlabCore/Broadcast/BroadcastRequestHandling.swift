/// `POST /4/broadcasts/apps/<bundle>`: a Live Activity update on a channel (A12).
extension APNsProviderConnection {
    /// The push type, then priority and expiration as the device API reads them.
    func parseBroadcastHeaders(_ attempt: inout ChannelAPIAttempt) throws(Rejection) {
        guard let sent = attempt.push.field(.pushType) else { throw Rejection(.missingPushType) }
        attempt.pushType = sent
        // Apple spells it liveactivity, LiveActivity and Liveactivity (A11, A12): any case [INF].
        guard sent.trimmingSpaces.lowercased() == APNsPushType.liveactivity.rawValue else { throw Rejection(.invalidPushType) }
        attempt.pushType = APNsPushType.liveactivity.rawValue
        // 1, 5 or 10 (A12's table; A9 names 5 and 10 for token pushes).
        try parsePriority(&attempt.push)
        try parseExpiration(&attempt.push)
    }

    /// The body (present, within the broadcast limit, JSON), the channel, and the expiration
    /// the channel's storage policy allows; then the broadcast waits for the sink.
    func acceptBroadcast(_ attempt: inout ChannelAPIAttempt, bundleID: String) throws(Rejection) {
        let length = attempt.request.bodyLength
        if length == 0 { throw Rejection(.payloadEmpty) }
        if length > policy.broadcastPayloadLimit { throw Rejection(.payloadTooLarge) }
        // A broadcast is read by every subscribed device: one that is not JSON is refused [INF].
        guard let payload = try? JSONParser.parse(attempt.request.body), payload.isObject else { throw Rejection(.badRequestPayload) }
        let channel = try namedChannel(attempt, bundleID: bundleID)
        // "For channels with a No Messages Stored storage policy, you can only specify a 0
        // expiration value" (A11); no header at all stores nothing either [INF].
        if channel.storagePolicy == .noStorage, let expiration = attempt.push.expiration, expiration != 0 {
            throw Rejection(.badExpirationDate)
        }
        attempt.broadcast = AcceptedBroadcast(
            requestID: attempt.requestID, receivedAt: attempt.push.receivedAt, environment: attempt.push.environment,
            bundleID: bundleID, channel: channel, priority: attempt.push.priority, expiration: attempt.push.expiration,
            payload: payload, payloadBytes: payloads.copy(attempt.request.body), connectionID: info.id
        )
        attempt.success = .success(status: 200, requestID: attempt.requestID)
    }
}
