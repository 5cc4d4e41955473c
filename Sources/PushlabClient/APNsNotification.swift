/// One push, as a provider sends it: the path's device token, the `apns-*` headers, the body.
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

    /// The request's header fields, pseudo-headers first, as APNs expects them.
    func headers(authority: String) -> [(String, String)] {
        var fields: [(String, String)] = [
            (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(deviceToken)"), (":authority", authority),
        ]
        if let providerToken { fields.append(("authorization", "bearer \(providerToken)")) }
        if let topic { fields.append(("apns-topic", topic)) }
        if let pushType { fields.append(("apns-push-type", pushType)) }
        if let priority { fields.append(("apns-priority", String(priority))) }
        if let expiration { fields.append(("apns-expiration", String(expiration))) }
        if let collapseID { fields.append(("apns-collapse-id", collapseID)) }
        if let apnsID { fields.append(("apns-id", apnsID)) }
        return fields
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
    /// The body as sent (empty on success).
    public var body: String

    public var isAccepted: Bool { status == 200 }
}
