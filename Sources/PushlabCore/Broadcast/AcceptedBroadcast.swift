/// A broadcast APNs accepted on a channel (`POST /4/broadcasts/apps/<bundle>`), for the
/// simulator to fan out to the Live Activities subscribed to the channel.
public struct AcceptedBroadcast: Sendable {
    /// The `apns-request-id` the answer carried.
    public var requestID: APNsID
    public var receivedAt: EpochMilliseconds
    public var environment: APNsEnvironment
    public var bundleID: String
    public var channel: BroadcastChannel
    public var priority: Int
    /// Epoch seconds; 0 means now or never; nil means APNs's default (8 hours for a storing channel).
    public var expiration: Int64?
    /// The parsed payload; nil when the body is not JSON.
    public var payload: JSONValue?
    public var payloadBytes: PayloadBytes
    public var connectionID: UInt64

    public init(
        requestID: APNsID, receivedAt: EpochMilliseconds, environment: APNsEnvironment, bundleID: String, channel: BroadcastChannel,
        priority: Int, expiration: Int64?, payload: JSONValue?, payloadBytes: PayloadBytes, connectionID: UInt64
    ) {
        self.requestID = requestID
        self.receivedAt = receivedAt
        self.environment = environment
        self.bundleID = bundleID
        self.channel = channel
        self.priority = priority
        self.expiration = expiration
        self.payload = payload
        self.payloadBytes = payloadBytes
        self.connectionID = connectionID
    }

    public var channelID: String { channel.id }
}
