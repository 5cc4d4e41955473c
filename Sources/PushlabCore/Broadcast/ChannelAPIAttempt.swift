/// One broadcast or channel management request on its way through the rules. The part the
/// device API's checks read (certificate, authentication, duplicate headers, priority,
/// expiration) is a `PushAttempt`, so those checks run here unchanged.
struct ChannelAPIAttempt {
    var push: PushAttempt
    /// nil for a path this API does not have.
    let endpoint: ChannelAPIEndpoint?
    /// The request carried `apns-request-id` (or `apns-id`): an unusable one is `BadMessageId`.
    let namesRequestID: Bool
    var operation: ChannelAPIOperation?
    /// `apns-push-type` as the log shows it: `liveactivity` once accepted, else as sent.
    var pushType: String?
    /// `apns-channel-id` as sent, or the id a create made.
    var channelID: String?
    /// The answer of a request that passed every rule.
    var success: APNsResponse?
    /// The broadcast an accepted request makes, for the sink.
    var broadcast: AcceptedBroadcast?
    /// The channel an accepted create or delete made or removed, for the sink.
    var channelChange: ChannelChange?

    /// What the sink decides of an accepted request: its broadcast or its channel change.
    var sinkItem: SinkItem? {
        if let broadcast { return .broadcast(broadcast) }
        return channelChange.map(SinkItem.channel)
    }

    /// The id the answer carries in `apns-request-id`.
    var requestID: APNsID { push.apnsID }
    var request: APNsRequest { push.request }
}
