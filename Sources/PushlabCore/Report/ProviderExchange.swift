/// One request and its answer, as the provider report reads it: only what its rules need, packed
/// so that a recording connection adds little to each request.
public struct ProviderExchange: Sendable, Equatable {
    public var time: EpochMilliseconds
    public var connectionID: UInt64
    /// The key or certificate that authenticated the request; for a token connection that has
    /// not authenticated yet, nil (the connection's provider, once it has one, is used).
    public var provider: ProviderIdentity?
    public var deviceToken: DeviceTokenKey?
    /// A fingerprint of the body and of the headers that shape the push (`RequestFingerprint`): the
    /// same token and request again is a retry.
    public var requestHash: UInt64
    public var status: Int
    public var reason: APNsErrorReason?
    public var pushType: APNsPushType?
    public var priority: Int
    public var expiration: Int64?
    /// The provider token that authenticated the request: its fingerprint and `iat`.
    public var providerToken: ProviderTokenStamp?

    public init(
        time: EpochMilliseconds, connectionID: UInt64, provider: ProviderIdentity?, deviceToken: DeviceTokenKey?, requestHash: UInt64,
        status: Int, reason: APNsErrorReason?, pushType: APNsPushType? = nil, priority: Int = 10, expiration: Int64? = nil,
        providerToken: ProviderTokenStamp? = nil
    ) {
        self.time = time
        self.connectionID = connectionID
        self.provider = provider
        self.deviceToken = deviceToken
        self.requestHash = requestHash
        self.status = status
        self.reason = reason
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.providerToken = providerToken
    }

}

/// A provider token as the report tells tokens apart: a fingerprint of its text, and when it says
/// it was issued.
public struct ProviderTokenStamp: Sendable, Equatable, Hashable {
    public var fingerprint: UInt64
    public var issuedAt: EpochMilliseconds

    public init(fingerprint: UInt64, issuedAt: EpochMilliseconds) {
        self.fingerprint = fingerprint
        self.issuedAt = issuedAt
    }
}

/// What a connection tells the report besides its requests.
public enum ProviderConnectionEvent: Sendable, Equatable {
    case opened(connectionID: UInt64, at: EpochMilliseconds, environment: APNsEnvironment, provider: ProviderIdentity?, streamLimit: UInt32)
    /// Answers that went out, each the time from the request's last frame to the answer's, in
    /// microseconds; `peakInFlight` is the most requests the connection held unanswered at once.
    case answered(connectionID: UInt64, latenciesMicroseconds: [UInt32], peakInFlight: Int, streamLimit: UInt32)
    /// The client opened more streams than allowed; the connection is refused the excess.
    case streamLimitExceeded(connectionID: UInt64, at: EpochMilliseconds)
    /// `goAway`: the reason of the GOAWAY Pushlab sent, if it sent one; `forErrors`: it sent it
    /// because the connection made too many errors.
    case closed(connectionID: UInt64, at: EpochMilliseconds, goAway: APNsErrorReason?, forErrors: Bool)
}
