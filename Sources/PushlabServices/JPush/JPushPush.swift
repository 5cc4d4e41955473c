import PushlabCore

/// A `POST /v3/push` (or `/v3/push/validate`) body as JPush reads it, once it passed its checks
/// (`JPushPush.parse`). Only what reaches an iOS phone is kept in full; the other platforms'
/// objects are checked for shape and kept as sent.
public struct JPushPush: Sendable, Equatable {
    public enum Platform: String, Sendable, CaseIterable {
        case android, ios, winphone, hmos, quickapp
    }

    public enum Audience: Sendable, Equatable {
        case all
        /// The selectors present; the push goes to the devices every one of them selects.
        case selected(Selectors)
    }

    /// `tag` (any of), `tag_and` (all of), `tag_not` (none of), `alias` (any of),
    /// `registration_id` (any of), `segment` and `abtest` (one id each).
    public struct Selectors: Sendable, Equatable {
        public var tags: [String]?
        public var tagsAnd: [String]?
        public var tagsNot: [String]?
        public var aliases: [String]?
        public var registrationIDs: [String]?
        public var segment: String?
        public var abtest: String?

        public init(
            tags: [String]? = nil, tagsAnd: [String]? = nil, tagsNot: [String]? = nil, aliases: [String]? = nil,
            registrationIDs: [String]? = nil, segment: String? = nil, abtest: String? = nil
        ) {
            self.tags = tags
            self.tagsAnd = tagsAnd
            self.tagsNot = tagsNot
            self.aliases = aliases
            self.registrationIDs = registrationIDs
            self.segment = segment
            self.abtest = abtest
        }
    }

    /// `notification.ios`, with the top-level `notification.alert` applied where it has none.
    public struct IOSNotification: Sendable, Equatable {
        /// A string or an alert dictionary (`title`, `subtitle`, `body`, …); an empty string shows
        /// nothing.
        public var alert: JSONValue
        /// A sound name, or a critical-alert dictionary; absent, the push makes no sound.
        public var sound: JSONValue?
        public var badge: BadgeChange?
        public var contentAvailable = false
        public var mutableContent = false
        public var category: String?
        public var threadID: String?
        public var interruptionLevel: String?
        /// Custom keys, each a top-level key of the APNs payload.
        public var extras: [(key: String, value: JSONValue)] = []

        public init(alert: JSONValue) {
            self.alert = alert
        }

        public static func == (lhs: IOSNotification, rhs: IOSNotification) -> Bool {
            lhs.alert == rhs.alert && lhs.sound == rhs.sound && lhs.badge == rhs.badge && lhs.contentAvailable == rhs.contentAvailable
                && lhs.mutableContent == rhs.mutableContent && lhs.category == rhs.category && lhs.threadID == rhs.threadID
                && lhs.interruptionLevel == rhs.interruptionLevel && JSONValue.object(lhs.extras) == JSONValue.object(rhs.extras)
        }
    }

    /// `message`: the custom message, carried by JPush's own connection to a running app.
    public struct CustomMessage: Sendable, Equatable {
        public var content: String
        public var title: String?
        public var contentType: String?
        public var extras: JSONValue?

        public init(content: String, title: String? = nil, contentType: String? = nil, extras: JSONValue? = nil) {
            self.content = content
            self.title = title
            self.contentType = contentType
            self.extras = extras
        }
    }

    public struct Options: Sendable, Equatable {
        /// Echoed back as the answer's `sendno` ("0" when absent).
        public var sendNo: Int64?
        /// How long a custom message waits for a device that is not connected, in seconds; 0:
        /// only devices connected now. No effect on iOS notifications (APNs stores those).
        public var timeToLive: Int64 = JPushRules.defaultTimeToLiveSeconds
        public var overrideMessageID: Int64?
        /// Which APNs environment the iOS notification goes to; JPush's own default is production.
        public var apnsProduction = true
        public var apnsCollapseID: String?
        public var bigPushDuration: Int64?

        public init() {}
    }

    public var platforms: Set<Platform>
    public var audience: Audience
    public var iosNotification: IOSNotification?
    /// Whether the push has a notification for a platform other than iOS (kept as sent).
    public var hasOtherNotification = false
    public var message: CustomMessage?
    public var options = Options()
    /// The idempotency key (`{appkey}-{uuid}`): the same cid again answers the first push's ids.
    public var cid: String?

    public init(platforms: Set<Platform>, audience: Audience) {
        self.platforms = platforms
        self.audience = audience
    }

    /// Whether anything of the push reaches an iOS phone.
    public var reachesIOS: Bool { platforms.contains(.ios) && (iosNotification != nil || message != nil) }
}

/// The limits JPush documents, in one place. The defaults are its documented values; a scenario's
/// `jpush` policy may change the ones marked configurable.
public enum JPushRules {
    public static let defaultTimeToLiveSeconds: Int64 = 86_400
    /// The longest `time_to_live` for an ordinary account (VIP accounts: 10 days). Configurable.
    public static let maximumTimeToLiveSeconds: Int64 = 3 * 86_400
    public static let maximumTags = 20
    public static let maximumAliases = 1_000
    public static let maximumRegistrationIDs = 1_000
    /// Bytes of a tag or an alias (UTF-8).
    public static let maximumNameBytes = 40
    /// The `"ios":{…}` object, as sent: APNs' 2,048 bytes less JPush's own keys.
    public static let maximumIOSNotificationBytes = 2_000
    /// The custom message's `msg_content` and the rest of `message`, for iOS.
    public static let maximumMessageBytes = 4_000
    public static let maximumCollapseIDBytes = 64
    public static let maximumBigPushMinutes: Int64 = 1_400
    /// Offline custom messages kept per device; an older one is dropped for a newer.
    public static let offlineMessagesKept = 5
    public static let interruptionLevels: Set<String> = ["active", "critical", "passive", "time-sensitive"]
}
