/// A push APNs accepted, with everything the device side needs; handed to a `PushSink`.
///
/// Kept small (152 bytes, from 288, and two references fewer): under a load test the
/// simulator catches up after the burst, so every push of the burst waits in memory, written by
/// an event loop that first has to fetch each of those cache lines. The token's registration is
/// held by reference rather than copied, the bundle id is read from it, and the parsed payload,
/// rarely present, is boxed.
public struct AcceptedPush: Sendable, CarriesAPNsID {
    /// Held as 128 bits: the text is only needed when the device records it.
    public var apnsIDValue: APNsID
    public var receivedAt: EpochMilliseconds
    public var connectionID: UInt64
    /// `Int64.min` for nil.
    private var expirationStorage: Int64
    public var priority: Int
    /// The registration APNs found for the token, or one made for a token it does not know.
    private var recipient: APNsWorld.Registration
    private var isRegistered: Bool
    public var environment: APNsEnvironment
    public var pushType: APNsPushType
    /// False for pushes Apple accepts but the device never acts on (background at priority 10).
    public var isDeliverable: Bool
    public var topic: String
    public var collapseID: String?
    private var parsedPayload: ParsedPayload?
    /// The body as the provider sent it.
    public var payloadBytes: PayloadBytes

    /// The token's registration, when APNs knows it.
    public var registration: DeviceTokenRecord? {
        get { isRegistered ? recipient.record : nil }
        set {
            if let newValue {
                recipient = APNsWorld.Registration(record: newValue)
                isRegistered = true
            } else if isRegistered {
                recipient = APNsWorld.Registration(record: Self.unknownToken(deviceToken, bundleID: bundleID, environment: environment))
                isRegistered = false
            }
        }
    }

    /// The kind of token it was sent to, read without copying the registration (`.app` for a
    /// token APNs does not know).
    public var tokenKind: DeviceTokenRecord.Kind { recipient.record.kind }

    /// The simulated device the token belongs to, read without copying the registration.
    public var deviceID: String? { isRegistered ? recipient.record.deviceID : nil }
    public var deviceToken: String { recipient.record.token }
    public var bundleID: String { recipient.record.bundleID }

    /// Epoch seconds; 0 means deliver once, now or never; nil means APNs's default storage.
    public var expiration: Int64? {
        get { expirationStorage == .min ? nil : expirationStorage }
        set { expirationStorage = newValue ?? .min }
    }

    /// The parsed payload; nil when the body is not JSON (accepted outside strict mode), or when
    /// neither a rule nor the sink needed it parsed.
    public var payload: JSONValue? {
        get { parsedPayload?.value }
        set { parsedPayload = newValue.map(ParsedPayload.init) }
    }

    public var rawPayload: [UInt8] {
        get { payloadBytes.array }
        set { payloadBytes = PayloadBytes(newValue) }
    }

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

    /// `bundleID` names the app when there is no registration; a registration names its own.
    public init(
        apnsID: APNsID, receivedAt: EpochMilliseconds, environment: APNsEnvironment, deviceToken: String,
        registration: DeviceTokenRecord?, topic: String, bundleID: String, pushType: APNsPushType, priority: Int,
        expiration: Int64?, collapseID: String?, payload: JSONValue?, payloadBytes: PayloadBytes, isDeliverable: Bool, connectionID: UInt64
    ) {
        let record = registration ?? Self.unknownToken(deviceToken, bundleID: bundleID, environment: environment)
        self.init(
            apnsID: apnsID, receivedAt: receivedAt, environment: environment, recipient: APNsWorld.Registration(record: record),
            isRegistered: registration != nil, topic: topic, pushType: pushType, priority: priority, expiration: expiration,
            collapseID: collapseID, payload: payload, payloadBytes: payloadBytes, isDeliverable: isDeliverable, connectionID: connectionID
        )
    }

    /// What a connection makes: the registration it found, shared rather than copied.
    init(
        apnsID: APNsID, receivedAt: EpochMilliseconds, environment: APNsEnvironment, recipient: APNsWorld.Registration,
        isRegistered: Bool, topic: String, pushType: APNsPushType, priority: Int, expiration: Int64?, collapseID: String?,
        payload: JSONValue?, payloadBytes: PayloadBytes, isDeliverable: Bool, connectionID: UInt64
    ) {
        self.apnsIDValue = apnsID
        self.receivedAt = receivedAt
        self.connectionID = connectionID
        self.expirationStorage = expiration ?? .min
        self.priority = priority
        self.recipient = recipient
        self.isRegistered = isRegistered
        self.environment = environment
        self.pushType = pushType
        self.isDeliverable = isDeliverable
        self.topic = topic
        self.collapseID = collapseID
        self.parsedPayload = payload.map(ParsedPayload.init)
        self.payloadBytes = payloadBytes
    }

    static func unknownToken(_ token: String, bundleID: String, environment: APNsEnvironment) -> DeviceTokenRecord {
        DeviceTokenRecord(token: token, bundleID: bundleID, environment: environment)
    }
}

/// A parsed payload, boxed: most accepted pushes carry none, and the box keeps the push small.
private final class ParsedPayload: Sendable {
    let value: JSONValue

    init(_ value: JSONValue) {
        self.value = value
    }
}

/// Drops everything: APNs answers, nothing is simulated.
public final class DiscardingPushSink: PushSink {
    public init() {}
    public var needsPayload: Bool { false }
    public func takesPushes(toDevice deviceID: String?) -> Bool { false }
    public func accept(_ push: AcceptedPush) {}
}
