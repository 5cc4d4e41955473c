/// Every choice the reference leaves open ([INF]), with the documented default.
/// `docs/APNS-COMPATIBILITY.md` lists each against what Apple does.
public struct APNsPolicy: Sendable, Equatable {
    /// Where the device-token checks stand (reference 7.3).
    public enum CheckOrder: String, Sendable, Codable {
        /// Connection, method, path, duplicates, header syntax, auth, topic, body, token format, token state, rate limit.
        case reference
        /// pushy's mock: the device-token checks come before authentication.
        case pushy
    }

    public enum DeviceTokenFormat: String, Sendable, Codable {
        /// Any even number of hex digits, 64 or more ("don't make assumptions about device token size").
        case variableLength
        /// Exactly 64 hex digits, as pushy's mock.
        case exactly64
    }

    public var checkOrder = CheckOrder.reference
    /// MAX_CONCURRENT_STREAMS once a connection is authenticated (APNs announced 1000 in 2021).
    public var maxConcurrentStreams: UInt32 = 1000
    /// A token connection allows one stream until its first valid provider token (Apple documents this).
    public var streamsBeforeFirstValidToken: UInt32 = 1
    /// After a rejected push the stream limit drops to 1 until the next accepted one (observed: O3, O4).
    public var throttleStreamsAfterRejection = true

    public var deviceTokenFormat = DeviceTokenFormat.variableLength
    /// A well-formed token APNs does not know is `BadDeviceToken`, as at Apple. Load tests may accept any.
    public var acceptUnknownDeviceTokens = false

    /// Background pushes at priority 10 are accepted and not delivered (as observed); strict answers `BadPriority`.
    public var strictBackgroundPriority = false
    /// Reject a payload that is not a JSON object, or whose shape does not fit its push type, with `BadRequestPayload`.
    public var strictPayload = false
    /// Accept only lower-case `apns-id`s, as Apple's text describes them.
    public var strictApnsIDCase = false

    /// `ExpiredProviderToken` once `iat` is more than this old.
    public var providerTokenLifetimeSeconds: Int64 = 3600
    /// `InvalidProviderToken` when `iat` is further than this in the future ("no more than one hour from the current time").
    public var providerTokenFutureSkewSeconds: Int64 = 3600
    /// `TooManyProviderTokenUpdates` for a new token within this long of the last change on a connection.
    public var providerTokenUpdateWindowSeconds: Int64 = 1200
    /// Extra token changes tolerated inside the window before answering 429 (real APNs showed some slack, O9).
    public var providerTokenUpdateAllowance = 0
    /// The spelling for a key used in the wrong environment: Apple's table says `BadEnvironmentKeyIdInToken`,
    /// APNs was seen answering `BadEnvironmentKeyInToken` (O7).
    public var environmentKeyReason = APNsErrorReason.badEnvironmentKeyIdInToken

    /// A certificate listing several topics and a request without `apns-topic`: `MissingTopic`, or the app topic.
    public var multiTopicCertificateDefaultsToAppTopic = false

    /// Per-device-token limit answering 429 `TooManyRequests`; nil turns it off. Apple documents no numbers.
    public var deviceTokenRateLimit: RateLimit? = RateLimit(requests: 300, perSeconds: 60)
    /// A connection is sent GOAWAY after this much error weight (410 does not count); nil never.
    public var errorBudgetPerConnection: Int? = 100
    /// `BadDeviceToken` weighs more: "APNs disconnects sooner with certain error conditions, such as BadDeviceToken".
    public var badDeviceTokenErrorWeight = 5
    /// GOAWAY `IdleTimeout` after this long without a frame from the client; nil never.
    public var idleTimeoutSeconds: Double? = 3600
    /// `apns-unique-id` (lower case) on development success responses, as Apple sends.
    public var sendUniqueIDInDevelopment = true

    /// Broadcast channels an app may have per environment; one more is `CannotCreateChannelConfig` (A10).
    public var channelLimitPerApp = 10_000
    /// Bytes a broadcast's payload may have; more is 413 `PayloadTooLarge` (A12). A channel
    /// configuration (create body) has the same limit [INF].
    public var broadcastPayloadLimit = 5120
    /// An `apns-channel-id` longer than this many characters is `BadChannelId` ("longer than
    /// allowed", A11, gives no number). Pushlab's ids have 24.
    public var maxChannelIDLength = 128

    /// How long answers take, and Apple's own failures (issue 49); nil answers at once, as a
    /// test wants.
    public var latency: LatencyProfile?

    public init() {}

    /// What makes this policy unusable, for a readable error when it is loaded; nil when fine.
    public var problem: String? {
        if maxConcurrentStreams < 1 { return "maxConcurrentStreams must be at least 1" }
        if streamsBeforeFirstValidToken < 1 { return "streamsBeforeFirstValidToken must be at least 1" }
        if providerTokenLifetimeSeconds < 1 { return "providerTokenLifetimeSeconds must be at least 1" }
        if providerTokenFutureSkewSeconds < 0 { return "providerTokenFutureSkewSeconds must not be negative" }
        if providerTokenUpdateWindowSeconds < 0 { return "providerTokenUpdateWindowSeconds must not be negative" }
        if providerTokenUpdateAllowance < 0 { return "providerTokenUpdateAllowance must not be negative" }
        if let limit = deviceTokenRateLimit, limit.requests < 1 || !(limit.perSeconds > 0) {
            return "deviceTokenRateLimit needs requests >= 1 and perSeconds > 0 (or off)"
        }
        if let budget = errorBudgetPerConnection, budget < 1 { return "errorBudgetPerConnection must be at least 1 (or off)" }
        if badDeviceTokenErrorWeight < 1 { return "badDeviceTokenErrorWeight must be at least 1" }
        if let idle = idleTimeoutSeconds, !(idle > 0) { return "idleTimeoutSeconds must be positive (or off)" }
        if channelLimitPerApp < 0 { return "channelLimitPerApp must not be negative" }
        if broadcastPayloadLimit < 1 { return "broadcastPayloadLimit must be at least 1" }
        if maxChannelIDLength < 4 { return "maxChannelIDLength must be at least 4 (one base64 group)" }
        if let problem = latency?.problem { return problem }
        if ![.badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken].contains(environmentKeyReason) {
            return "environmentKeyReason must be BadEnvironmentKeyIdInToken or BadEnvironmentKeyInToken"
        }
        return nil
    }

    public struct RateLimit: Sendable, Equatable, Codable {
        public var requests: Int
        public var perSeconds: Double

        public init(requests: Int, perSeconds: Double) {
            self.requests = requests
            self.perSeconds = perSeconds
        }
    }
}
