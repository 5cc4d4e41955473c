/// One broadcast, as a provider sends it (`pushlab run`): `POST /4/broadcasts/apps/<bundle>` with
/// the channel's id, to every Live Activity subscribed to it (A12).
public struct APNsBroadcast: Sendable, Equatable {
    /// The bare bundle id: no push type suffix.
    public var bundleID: String
    public var channelID: String
    public var payload: [UInt8]
    public var pushType: String
    public var priority: Int?
    /// Epoch seconds; a channel that stores nothing takes only 0.
    public var expiration: Int64?
    /// Sent as `apns-request-id`.
    public var requestID: String?
    public var providerToken: String?

    public init(
        bundleID: String, channelID: String, payload: [UInt8], pushType: String = "liveactivity", priority: Int? = nil,
        expiration: Int64? = nil, requestID: String? = nil, providerToken: String? = nil
    ) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.payload = payload
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.providerToken = providerToken
    }
}
