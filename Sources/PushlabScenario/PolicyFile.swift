import PushlabCore

/// The `policy:` section of a scenario: any subset of `APNsPolicy`, by the same names.
public struct PolicyFile: Decodable, Sendable {
    public var checkOrder: APNsPolicy.CheckOrder?
    public var maxConcurrentStreams: UInt32?
    public var streamsBeforeFirstValidToken: UInt32?
    public var throttleStreamsAfterRejection: Bool?
    public var deviceTokenFormat: APNsPolicy.DeviceTokenFormat?
    public var acceptUnknownDeviceTokens: Bool?
    public var strictBackgroundPriority: Bool?
    public var strictPayload: Bool?
    public var strictApnsIDCase: Bool?
    public var providerTokenLifetimeSeconds: Int64?
    public var providerTokenFutureSkewSeconds: Int64?
    public var providerTokenUpdateWindowSeconds: Int64?
    public var providerTokenUpdateAllowance: Int?
    public var environmentKeyReason: APNsErrorReason?
    public var multiTopicCertificateDefaultsToAppTopic: Bool?
    /// `{requests: N, perSeconds: S}`, or `off`.
    public var deviceTokenRateLimit: RateLimitSetting?
    /// A number, or `off`.
    public var errorBudgetPerConnection: OptionalNumber<Int>?
    public var badDeviceTokenErrorWeight: Int?
    public var idleTimeoutSeconds: OptionalNumber<Double>?
    public var sendUniqueIDInDevelopment: Bool?
    public var channelLimitPerApp: Int?
    public var broadcastPayloadLimit: Int?
    public var maxChannelIDLength: Int?
    /// How long answers take, and Apple's own failures (`LatencyFile`).
    public var latency: LatencyFile?

    public func applied(to base: APNsPolicy) -> APNsPolicy {
        var policy = base
        if let checkOrder { policy.checkOrder = checkOrder }
        if let maxConcurrentStreams { policy.maxConcurrentStreams = maxConcurrentStreams }
        if let streamsBeforeFirstValidToken { policy.streamsBeforeFirstValidToken = streamsBeforeFirstValidToken }
        if let throttleStreamsAfterRejection { policy.throttleStreamsAfterRejection = throttleStreamsAfterRejection }
        if let deviceTokenFormat { policy.deviceTokenFormat = deviceTokenFormat }
        if let acceptUnknownDeviceTokens { policy.acceptUnknownDeviceTokens = acceptUnknownDeviceTokens }
        if let strictBackgroundPriority { policy.strictBackgroundPriority = strictBackgroundPriority }
        if let strictPayload { policy.strictPayload = strictPayload }
        if let strictApnsIDCase { policy.strictApnsIDCase = strictApnsIDCase }
        if let providerTokenLifetimeSeconds { policy.providerTokenLifetimeSeconds = providerTokenLifetimeSeconds }
        if let providerTokenFutureSkewSeconds { policy.providerTokenFutureSkewSeconds = providerTokenFutureSkewSeconds }
        if let providerTokenUpdateWindowSeconds { policy.providerTokenUpdateWindowSeconds = providerTokenUpdateWindowSeconds }
        if let providerTokenUpdateAllowance { policy.providerTokenUpdateAllowance = providerTokenUpdateAllowance }
        if let environmentKeyReason { policy.environmentKeyReason = environmentKeyReason }
        if let multiTopicCertificateDefaultsToAppTopic { policy.multiTopicCertificateDefaultsToAppTopic = multiTopicCertificateDefaultsToAppTopic }
        if let deviceTokenRateLimit { policy.deviceTokenRateLimit = deviceTokenRateLimit.limit }
        if let errorBudgetPerConnection { policy.errorBudgetPerConnection = errorBudgetPerConnection.value }
        if let badDeviceTokenErrorWeight { policy.badDeviceTokenErrorWeight = badDeviceTokenErrorWeight }
        if let idleTimeoutSeconds { policy.idleTimeoutSeconds = idleTimeoutSeconds.value }
        if let sendUniqueIDInDevelopment { policy.sendUniqueIDInDevelopment = sendUniqueIDInDevelopment }
        if let channelLimitPerApp { policy.channelLimitPerApp = channelLimitPerApp }
        if let broadcastPayloadLimit { policy.broadcastPayloadLimit = broadcastPayloadLimit }
        if let maxChannelIDLength { policy.maxChannelIDLength = maxChannelIDLength }
        if let latency { policy.latency = latency.profile }
        return policy
    }
}

/// A rate limit, or the word `off`.
public struct RateLimitSetting: Decodable, Sendable {
    public var limit: APNsPolicy.RateLimit?

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let word = try? container.decode(String.self) {
            guard word == "off" else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected {requests, perSeconds} or off, not \(word)")
            }
            limit = nil
        } else {
            limit = try container.decode(APNsPolicy.RateLimit.self)
        }
    }
}

/// A number, or the word `off` for none.
public struct OptionalNumber<Value: Decodable & Sendable>: Decodable, Sendable {
    public var value: Value?

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let word = try? container.decode(String.self), word == "off" {
            value = nil
        } else {
            value = try container.decode(Value.self)
        }
    }
}
