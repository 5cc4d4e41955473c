/// One request on its way through the rules; each step fills in what it learned.
struct PushAttempt {
    let request: APNsRequest
    let environment: APNsEnvironment
    let receivedAt: EpochMilliseconds
    var apnsID: APNsID
    /// The request's own `apns-id` was usable and is the answer's; false when one was made.
    let echoesRequestedID: Bool
    var fields = APNsHeaderFields()
    var deviceToken: DeviceTokenKey?
    var topic: APNsTopic?
    var pushType: APNsPushType?
    /// The push type demands a topic suffix the topic lacks: the token cannot be for that topic.
    var topicLacksPushTypeSuffix = false
    var priority = 10
    var expiration: Int64?
    var collapseID: String?
    /// The token as APNs knows it, with its rate window: counting needs no second lookup.
    var registered: APNsWorld.Registration?
    var payload: JSONValue?
    var isDeliverable = true
}

/// The raw values of the headers APNs reads, found in one pass.
struct APNsHeaderFields {
    var apnsID: String?
    var priority: String?
    var pushType: String?
    var expiration: String?
    var collapseID: String?
    var topic: String?
    var authorization: String?
    /// An `apns-*` header or `authorization` appeared twice.
    var hasDuplicate = false
}

/// Why a request is refused; 410s carry the time the token stopped being valid.
struct Rejection: Error {
    var reason: APNsErrorReason
    var timestamp: EpochMilliseconds?
    /// Also end the connection (a certificate for the wrong environment).
    var goAway = false

    init(_ reason: APNsErrorReason, timestamp: EpochMilliseconds? = nil, goAway: Bool = false) {
        self.reason = reason
        self.timestamp = timestamp
        self.goAway = goAway
    }
}
