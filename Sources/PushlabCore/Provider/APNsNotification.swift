/// One push, as a provider sends it (Pushlab's client, `pushlab run`): the path's device token, the `apns-*` headers, the body.
public struct APNsNotification: Sendable, Equatable {
    public var deviceToken: String
    public var payload: [UInt8]
    public var topic: String?
    public var pushType: String?
    public var priority: Int?
    /// Epoch seconds; 0 = deliver once, now or never.
    public var expiration: Int64?
    public var collapseID: String?
    public var apnsID: String?
    /// A provider token (JWT) for `authorization: bearer`; nil with certificate auth.
    public var providerToken: String?

    public init(deviceToken: String, payload: [UInt8], topic: String? = nil, pushType: String? = nil, priority: Int? = nil, expiration: Int64? = nil, collapseID: String? = nil, apnsID: String? = nil, providerToken: String? = nil) {
        self.deviceToken = deviceToken
        self.payload = payload
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.providerToken = providerToken
    }
}

/// What APNs answered.
public struct APNsAnswer: Sendable, Equatable {
    public var status: Int
    public var apnsID: String?
    /// Development only: APNs's own id for the push.
    public var apnsUniqueID: String?
    /// The `reason` of an error body.
    public var reason: String?
    /// The `timestamp` of a 410 body (epoch milliseconds).
    public var timestamp: Int64?
    /// The body as sent (empty on a device push's success; JSON for a channel read or list).
    public var body: String
    /// `apns-request-id`: the broadcast and channel management API's id of the request.
    public var requestID: String?
    /// `apns-channel-id`: the channel a create made.
    public var channelID: String?

    /// 200, or the 201 and 204 of channel management.
    public var isAccepted: Bool { (200..<300).contains(status) }

    public init(
        status: Int, apnsID: String? = nil, apnsUniqueID: String? = nil, reason: String? = nil, timestamp: Int64? = nil, body: String = "",
        requestID: String? = nil, channelID: String? = nil
    ) {
        self.status = status
        self.apnsID = apnsID
        self.apnsUniqueID = apnsUniqueID
        self.reason = reason
        self.timestamp = timestamp
        self.body = body
        self.requestID = requestID
        self.channelID = channelID
    }

    /// `410 Unregistered`, `200`.
    public var summary: String { reason.map { "\(status) \($0)" } ?? "\(status)" }
}
