/// Something a provider did that Apple's documentation warns against, with the rule and where
/// Apple states it. `docs/LOAD-TESTING.md` lists each with its evidence.
public struct ProviderFinding: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case connectionPerPush = "connection-per-push"
        case tokenRefreshedTooOften = "token-refreshed-too-often"
        case expiredProviderToken = "expired-provider-token"
        case ignored429 = "ignored-429"
        case fasterAfter429 = "faster-after-429"
        case pushedAfter410 = "pushed-after-410"
        case duplicatePush = "duplicate-push"
        case retriedRefusal = "retried-refusal"
        case streamLimitReached = "stream-limit-reached"
        case streamLimitExceeded = "stream-limit-exceeded"
        case closedForErrors = "closed-for-errors"
        case backgroundPriority10 = "background-priority-10"
        case expirationBeyondStorage = "expiration-beyond-storage"

        var bit: UInt32 { 1 << UInt32(Self.allCases.firstIndex(of: self)!) }

        /// What the provider did, in a line.
        public var title: String {
            switch self {
            case .connectionPerPush: "Opened a connection for a push or two, then closed it within seconds"
            case .tokenRefreshedTooOften: "Signed a provider token for a push or two, less than 20 minutes from another"
            case .expiredProviderToken: "Kept a provider token past its hour"
            case .ignored429: "Pushed again to a token less than a second after its 429 TooManyRequests"
            case .fasterAfter429: "Sent faster in the second after 429 TooManyRequests answers"
            case .pushedAfter410: "Pushed again to a token APNs had answered 410"
            case .duplicatePush: "Sent the same payload to the same token again after APNs accepted it"
            case .retriedRefusal: "Sent a refused request again unchanged"
            case .streamLimitReached: "Filled a connection's concurrent streams: too few connections for the rate"
            case .streamLimitExceeded: "Opened more concurrent streams than the connection allowed, and had them refused"
            case .closedForErrors: "Lost connections to GOAWAY after too many errors"
            case .backgroundPriority10: "Sent background pushes at priority 10"
            case .expirationBeyondStorage: "Set apns-expiration more than 30 days ahead (milliseconds for seconds?)"
            }
        }

        /// Apple's rule, as Apple words it where it does.
        public var rule: String {
            switch self {
            case .connectionPerPush:
                "\"Reuse a connection as long as possible … for many hours to days.\" Opening and closing connections repeatedly can get the server temporarily blocked."
            case .tokenRefreshedTooOften:
                "\"Refresh your token no more than once every 20 minutes and no less than once every 60 minutes.\""
            case .expiredProviderToken:
                "\"APNs rejects any request whose token contains a timestamp that's more than one hour old.\""
            case .ignored429:
                "429 TooManyRequests: \"Too many requests were made consecutively to the same device token.\" Too many to one device \"may\" get the server \"temporarily\" blocked."
            case .fasterAfter429:
                "429 TooManyRequests asks the provider to slow down: \"Too many requests were made consecutively to the same device token.\""
            case .pushedAfter410:
                "410 Unregistered: \"The device token is inactive for the specified topic.\" Stop pushing to it."
            case .duplicatePush:
                "200 means APNs accepted the push; sending it again shows the user a second notification."
            case .retriedRefusal:
                "A 4xx names what is wrong with the request; the same request gets the same answer."
            case .streamLimitReached:
                "\"When sending many remote notifications, you can establish multiple connections to these servers to improve performance.\" \"Avoid push bursts over selective connections.\""
            case .streamLimitExceeded:
                "A client must not open more streams than SETTINGS_MAX_CONCURRENT_STREAMS (1 until the connection's first valid provider token); the excess is refused, and never reaches APNs."
            case .closedForErrors:
                "APNs closes a connection that makes too many errors (GOAWAY with the last error's reason)."
            case .backgroundPriority10:
                "apns-priority for a background push: \"Always use priority 5. Using priority 10 is an error.\""
            case .expirationBeyondStorage:
                "apns-expiration is in UNIX epoch seconds; APNs stores a push for at most 30 days."
            }
        }

        /// Where Apple says it.
        public var source: String {
            switch self {
            case .connectionPerPush, .streamLimitReached, .backgroundPriority10:
                "https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns"
            case .tokenRefreshedTooOften, .expiredProviderToken:
                "https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns"
            case .ignored429, .fasterAfter429, .pushedAfter410, .duplicatePush, .retriedRefusal, .closedForErrors:
                "https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns"
            case .streamLimitExceeded:
                "https://www.rfc-editor.org/rfc/rfc9113#section-5.1.2"
            case .expirationBeyondStorage:
                "https://developer.apple.com/documentation/usernotifications/viewing-the-status-of-push-notifications-using-metrics-and-apns"
            }
        }
    }

    public var kind: Kind
    /// How many times (requests, connections or tokens, as `unit` says).
    public var count: Int
    public var unit: String
    /// A few of them, in words.
    public var examples: [String]

    public init(kind: Kind, count: Int, unit: String, examples: [String]) {
        self.kind = kind
        self.count = count
        self.unit = unit
        self.examples = examples
    }
}
