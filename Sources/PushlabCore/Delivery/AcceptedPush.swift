/// A push APNs accepted, with everything the device side needs; handed to a `PushSink`.
public struct AcceptedPush: Sendable, CarriesAPNsID {
    /// Held as 128 bits: a push may wait in the delivery queue, and the text is only needed
    /// when the device records it.
    public var apnsIDValue: APNsID
    public var receivedAt: EpochMilliseconds
    public var environment: APNsEnvironment
    public var deviceToken: String
    /// The token's registration, when APNs knows it.
    public var registration: DeviceTokenRecord?
    public var topic: String
    public var bundleID: String
    public var pushType: APNsPushType
    public var priority: Int
    /// Epoch seconds; 0 means deliver once, now or never; nil means APNs's default storage.
    public var expiration: Int64?
    public var collapseID: String?
    /// The parsed payload; nil when the body is not JSON (accepted outside strict mode), or when
    /// neither a rule nor the sink needed it parsed.
    public var payload: JSONValue?
    /// The body as the provider sent it.
    public var payloadBytes: PayloadBytes
    public var rawPayload: [UInt8] {
        get { payloadBytes.array }
        set { payloadBytes = PayloadBytes(newValue) }
    }
    /// False for pushes Apple accepts but the device never acts on (background at priority 10).
    public var isDeliverable: Bool
    public var connectionID: UInt64

    public init(
        apnsID: APNsID, receivedAt: EpochMilliseconds, environment: APNsEnvironment, deviceToken: String,
        registration: DeviceTokenRecord?, topic: String, bundleID: String, pushType: APNsPushType, priority: Int,
        expiration: Int64?, collapseID: String?, payload: JSONValue?, rawPayload: [UInt8], isDeliverable: Bool, connectionID: UInt64
    ) {
        self.init(
            apnsID: apnsID, receivedAt: receivedAt, environment: environment, deviceToken: deviceToken, registration: registration,
            topic: topic, bundleID: bundleID, pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID,
            payload: payload, payloadBytes: PayloadBytes(rawPayload), isDeliverable: isDeliverable, connectionID: connectionID
        )
    }

    public init(
        apnsID: APNsID, receivedAt: EpochMilliseconds, environment: APNsEnvironment, deviceToken: String,
        registration: DeviceTokenRecord?, topic: String, bundleID: String, pushType: APNsPushType, priority: Int,
        expiration: Int64?, collapseID: String?, payload: JSONValue?, payloadBytes: PayloadBytes, isDeliverable: Bool, connectionID: UInt64
    ) {
        self.apnsIDValue = apnsID
        self.receivedAt = receivedAt
        self.environment = environment
        self.deviceToken = deviceToken
        self.registration = registration
        self.topic = topic
        self.bundleID = bundleID
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.payloadBytes = payloadBytes
        self.isDeliverable = isDeliverable
        self.connectionID = connectionID
    }
}

/// Where accepted pushes go (the device simulator). Called on the event loop: return quickly.
public protocol PushSink: Sendable {
    /// Whether `accept` reads `payload`; when false the payload is only parsed if a rule needs it.
    var needsPayload: Bool { get }
    /// Whether `accept` does anything with a push to a token of this simulated device (nil: a
    /// token with no device behind it, or one APNs does not know). When false the push is not
    /// even assembled: a load test's bare tokens cost the sink nothing.
    func takesPushes(toDevice deviceID: String?) -> Bool
    func accept(_ push: AcceptedPush)
    /// Pushes accepted together (the answers of one read of a connection), in order.
    func accept(_ pushes: [AcceptedPush])
}

extension PushSink {
    public var needsPayload: Bool { true }
    public func takesPushes(toDevice deviceID: String?) -> Bool { true }
    public func accept(_ pushes: [AcceptedPush]) {
        for push in pushes { accept(push) }
    }
}

/// Drops everything: APNs answers, nothing is simulated.
public struct DiscardingPushSink: PushSink {
    public init() {}
    public var needsPayload: Bool { false }
    public func takesPushes(toDevice deviceID: String?) -> Bool { false }
    public func accept(_ push: AcceptedPush) {}
}
