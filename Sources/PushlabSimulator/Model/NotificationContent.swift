import PushlabCore

/// A notification as the device reads it: the `aps` dictionary's parts and the whole `userInfo`.
public struct NotificationContent: Sendable, Codable, Equatable {
    /// The largest badge a device, an app or a local notification may be given by hand: a
    /// 32-bit number, as iOS keeps it; larger ones would not read back from the store exactly.
    public static let largestBadge = Int(Int32.max)

    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// The sound's name (`aps.sound` as a string, or its `name` for critical alerts).
    public var sound: String?
    public var badge: Int?
    public var category: String?
    public var threadID: String?
    public var contentAvailable: Bool
    public var mutableContent: Bool
    /// `aps.interruption-level`: `time-sensitive` and `critical` break through a Focus.
    public var interruptionLevel: String?
    /// The payload, as the app's callbacks receive it.
    public var userInfo: JSONValue

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, sound: String? = nil, badge: Int? = nil, category: String? = nil, threadID: String? = nil, contentAvailable: Bool = false, mutableContent: Bool = false, interruptionLevel: String? = nil, userInfo: JSONValue = .object([])) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.badge = badge
        self.category = category
        self.threadID = threadID
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.interruptionLevel = interruptionLevel
        self.userInfo = userInfo
    }

    /// Reads a remote payload. `aps.alert` may be a string (the body) or a dictionary; localized
    /// keys (`title-loc-key`, `loc-key`) stand in for text the app's strings file would supply.
    public init(payload: JSONValue) {
        let aps = payload["aps"]
        var title: String?
        var subtitle: String?
        var body: String?
        switch aps?["alert"] {
        case .string(let text)?: body = text
        case let alert? where alert.isObject:
            title = alert["title"]?.stringValue ?? alert["title-loc-key"]?.stringValue
            subtitle = alert["subtitle"]?.stringValue ?? alert["subtitle-loc-key"]?.stringValue
            body = alert["body"]?.stringValue ?? alert["loc-key"]?.stringValue
        default: break
        }
        let sound: String? = switch aps?["sound"] {
        case .string(let name)?: name.isEmpty ? nil : name
        case let critical? where critical.isObject: critical["name"]?.stringValue
        default: nil
        }
        self.init(
            title: title, subtitle: subtitle, body: body, sound: sound,
            badge: aps?["badge"]?.integerValue.map { Int(clamping: $0) },
            category: aps?["category"]?.stringValue,
            threadID: aps?["thread-id"]?.stringValue,
            contentAvailable: aps?["content-available"]?.integerValue == 1,
            mutableContent: aps?["mutable-content"]?.integerValue == 1,
            interruptionLevel: aps?["interruption-level"]?.stringValue,
            userInfo: payload
        )
    }

    /// Text for a banner: a title, subtitle or body.
    public var hasAlert: Bool { title != nil || subtitle != nil || body != nil }

    var breaksThroughFocus: Bool { interruptionLevel == "time-sensitive" || interruptionLevel == "critical" }

    /// Something the user can see or hear: an alert, a sound or a badge.
    public var isUserVisible: Bool { hasAlert || sound != nil || badge != nil }
}
