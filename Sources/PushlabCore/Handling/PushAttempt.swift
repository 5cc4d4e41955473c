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
    /// Every rule accepted it, and the sink gives its verdict later (`PushSink.verdictNow`).
    var awaitsVerdict = false

    /// The value of an APNs header the request carries.
    func field(_ field: APNsHeaderFields.Field) -> String? { fields.value(field, in: request) }

    /// nil when the header is absent, else what `parse` reads from its bytes in place (nil inside
    /// for a value it refuses).
    func parseField<Value>(_ field: APNsHeaderFields.Field, _ parse: (UnsafeRawBufferPointer) -> Value?) -> Value?? {
        withField(field) { $0.map(parse) }
    }

    /// The bytes of an APNs header the request carries, read in place.
    func withField<Result>(_ field: APNsHeaderFields.Field, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        fields.withValue(field, in: request, body)
    }
}

/// Where the headers APNs reads are among the request's headers, found in one pass: positions
/// rather than copies of the values, so finding them costs no reference counting.
struct APNsHeaderFields {
    enum Field: Int {
        case apnsID, priority, pushType, expiration, collapseID, topic, authorization
    }

    /// Index among the request's headers per field (the last one when repeated), -1 when absent.
    private var positions = SIMD8<Int32>(repeating: -1)
    /// An `apns-*` header or `authorization` appeared twice.
    var hasDuplicate = false

    mutating func note(_ field: Field, at index: Int) {
        positions[field.rawValue] = Int32(truncatingIfNeeded: index)
    }

    func value(_ field: Field, in request: APNsRequest) -> String? {
        let position = Int(positions[field.rawValue])
        return position < 0 ? nil : request.fields.value(at: position)
    }

    /// The value's bytes in place, or nil when the header is absent: no string is made.
    func withValue<Result>(_ field: Field, in request: APNsRequest, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        let position = Int(positions[field.rawValue])
        return position < 0 ? body(nil) : request.fields.withValue(at: position, body)
    }
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

    /// What a sink's verdict refuses; nil for `.accepted`. A sink that could not decide (or a
    /// verdict that answers nothing about the push) makes a 500.
    init?(verdict: AdmissionVerdict) {
        switch verdict {
        case .accepted: return nil
        case .unregistered(let since): self.init(.unregistered, timestamp: since)
        case .expired(let since): self.init(.expiredToken, timestamp: since)
        case .tooManyRequests: self.init(.tooManyRequests)
        case .failed, .checked: self.init(.internalServerError)
        }
    }
}
