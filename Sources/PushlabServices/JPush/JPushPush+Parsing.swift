import PushlabCore

extension JPushPush {
    /// The top-level keys JPush takes (newer ones included: they are checked for shape only).
    static let topLevelKeys: Set<String> = [
        "platform", "audience", "notification", "message", "sms_message", "options", "cid", "inapp_message", "notification_3rd", "callback",
    ]
    static let iosKeys: Set<String> = [
        "alert", "sound", "badge", "content-available", "mutable-content", "category", "thread-id", "interruption-level", "extras",
    ]
    static let audienceKeys: Set<String> = ["tag", "tag_and", "tag_not", "alias", "registration_id", "segment", "abtest", "live_activity_id"]

    /// Reads a push body in JPush's order: missing parameters (1002), then values (1003),
    /// unsupported keys (1009) and sizes (1005). `maximumTimeToLive` is the account's limit.
    public static func parse(_ body: [UInt8], maximumTimeToLive: Int64 = JPushRules.maximumTimeToLiveSeconds) throws(JPushError) -> JPushPush {
        let json: JSONValue
        do {
            json = try JSONParser.parse(body)
        } catch {
            throw JPushError(.invalidParameter, "The request body is not valid JSON")
        }
        guard case .object(let members) = json else { throw JPushError(.invalidParameter, "The request body must be a JSON object") }
        if let unknown = members.first(where: { !topLevelKeys.contains($0.key) }) {
            throw JPushError(.unsupportedKey, "Unsupported key in push object: \(unknown.key)")
        }
        guard let platformValue = json["platform"] else { throw JPushError(.missingParameter, "Missing parameter: platform") }
        guard let audienceValue = json["audience"] else { throw JPushError(.missingParameter, "Missing parameter: audience") }
        let notification = json["notification"], message = json["message"]
        if notification == nil && message == nil {
            throw JPushError(.missingParameter, "Missing parameter: notification or message (one of them is required)")
        }
        var push = JPushPush(platforms: try platforms(platformValue), audience: try audience(audienceValue))
        if let notification { try push.readNotification(notification) }
        if let message { push.message = try customMessage(message) }
        if let options = json["options"] { push.options = try Self.options(options, maximumTimeToLive: maximumTimeToLive) }
        if let cid = json["cid"] {
            guard let text = cid.stringValue, !text.isEmpty else { throw JPushError(.invalidParameter, "cid must be a string") }
            push.cid = text
        }
        return push
    }

    private static func platforms(_ value: JSONValue) throws(JPushError) -> Set<Platform> {
        if value.stringValue == "all" { return Set(Platform.allCases) }
        guard case .array(let items) = value, !items.isEmpty else {
            throw JPushError(.invalidParameter, "Invalid param - platform should be \"all\" or an array of platforms")
        }
        var platforms: Set<Platform> = []
        for item in items {
            guard let name = item.stringValue, let platform = Platform(rawValue: name) else {
                throw JPushError(.invalidParameter, "Invalid param - unknown platform \(item)")
            }
            platforms.insert(platform)
        }
        return platforms
    }

    private static func audience(_ value: JSONValue) throws(JPushError) -> Audience {
        if value.stringValue == "all" { return .all }
        guard case .object(let members) = value else {
            throw JPushError(.invalidParameter, "Invalid param - audience should be \"all\" or an object")
        }
        if let unknown = members.first(where: { !audienceKeys.contains($0.key) }) {
            throw JPushError(.invalidParameter, "Invalid param - unknown audience type \(unknown.key)")
        }
        var selectors = Selectors()
        selectors.tags = try names(value["tag"], "tag", limit: JPushRules.maximumTags)
        selectors.tagsAnd = try names(value["tag_and"], "tag_and", limit: JPushRules.maximumTags)
        selectors.tagsNot = try names(value["tag_not"], "tag_not", limit: JPushRules.maximumTags)
        selectors.aliases = try names(value["alias"], "alias", limit: JPushRules.maximumAliases)
        selectors.registrationIDs = try names(value["registration_id"], "registration_id", limit: JPushRules.maximumRegistrationIDs)
        selectors.segment = try names(value["segment"], "segment", limit: 1)?.first
        selectors.abtest = try names(value["abtest"], "abtest", limit: 1)?.first
        if value["live_activity_id"] != nil {
            throw JPushError(.invalidParameter, "Invalid param - live_activity_id is not supported by Pushlab's JPush")
        }
        let chosen = [selectors.tags, selectors.tagsAnd, selectors.tagsNot, selectors.aliases, selectors.registrationIDs].contains { $0 != nil }
            || selectors.segment != nil || selectors.abtest != nil
        guard chosen else { throw JPushError(.invalidParameter, "Invalid param - audience selects nothing") }
        return .selected(selectors)
    }

    /// An audience array: nil when absent or empty ("an empty array means the type is absent").
    private static func names(_ value: JSONValue?, _ key: String, limit: Int) throws(JPushError) -> [String]? {
        guard let value else { return nil }
        guard case .array(let items) = value else { throw JPushError(.invalidParameter, "Invalid param - audience \(key) should be an array") }
        if items.isEmpty { return nil }
        guard items.count <= limit else { throw JPushError(.invalidParameter, "Invalid param - audience \(key) has more than \(limit) values") }
        var names: [String] = []
        for item in items {
            guard let name = item.stringValue, !name.isEmpty else {
                throw JPushError(.invalidParameter, "Invalid param - audience \(key) has an empty or non-string value")
            }
            if key == "registration_id" {
                guard JPushRegistrationID.isWellFormed(name) else { throw JPushError(.invalidParameter, "The registration_id \(name) is invalid!") }
            } else if key != "segment" && key != "abtest", name.utf8.count > JPushRules.maximumNameBytes {
                throw JPushError(.invalidParameter, "Invalid param - \(key) \(name) is longer than \(JPushRules.maximumNameBytes) bytes")
            }
            names.append(name)
        }
        return names
    }

    private mutating func readNotification(_ value: JSONValue) throws(JPushError) {
        guard case .object(let members) = value else { throw JPushError(.invalidParameter, "Invalid param - notification should be an object") }
        let sharedAlert = value["alert"]
        if let sharedAlert, sharedAlert.stringValue == nil {
            throw JPushError(.invalidParameter, "Invalid param - notification.alert should be a string")
        }
        for member in members where member.key != "alert" && member.key != "ios" {
            guard member.value.isObject else { throw JPushError(.invalidParameter, "Invalid param - notification.\(member.key) should be an object") }
            hasOtherNotification = true
        }
        if let ios = value["ios"] {
            iosNotification = try Self.iosNotification(ios, sharedAlert: sharedAlert)
        } else if let sharedAlert {
            iosNotification = IOSNotification(alert: sharedAlert)
        }
    }

    private static func iosNotification(_ value: JSONValue, sharedAlert: JSONValue?) throws(JPushError) -> IOSNotification {
        guard case .object(let members) = value else { throw JPushError(.invalidParameter, "Invalid param - notification.ios should be an object") }
        if let unknown = members.first(where: { !iosKeys.contains($0.key) }) {
            throw JPushError(.unsupportedKey, "Unsupported key in notification.ios: \(unknown.key); put custom keys in extras")
        }
        guard let alert = value["alert"] ?? sharedAlert else {
            throw JPushError(.invalidParameter, "Invalid param - notification.ios needs an alert (or notification.alert)")
        }
        guard alert.stringValue != nil || alert.isObject else {
            throw JPushError(.invalidParameter, "Invalid param - notification.ios.alert should be a string or an object")
        }
        guard value.description.utf8.count <= JPushRules.maximumIOSNotificationBytes else {
            throw JPushError(.messageTooLarge, "Message body is too large: notification.ios is over \(JPushRules.maximumIOSNotificationBytes) bytes")
        }
        var ios = IOSNotification(alert: alert)
        if let sound = value["sound"] {
            guard sound.stringValue != nil || sound.isObject else { throw JPushError(.invalidParameter, "Invalid param - notification.ios.sound") }
            ios.sound = sound
        }
        if let badge = value["badge"] {
            let parsed: BadgeChange? = switch badge {
            case .string(let text): BadgeChange(text: text)
            default: badge.integerValue.flatMap { BadgeChange(integer: $0) }
            }
            guard let parsed else {
                throw JPushError(.invalidParameter, "Badge number should be 0~\(BadgeChange.largestValue), or +N / -N with N up to \(BadgeChange.largestStep)")
            }
            ios.badge = parsed
        }
        ios.contentAvailable = try flag(value["content-available"], "content-available")
        ios.mutableContent = try flag(value["mutable-content"], "mutable-content")
        ios.category = try text(value["category"], "category")
        ios.threadID = try text(value["thread-id"], "thread-id")
        if let level = try text(value["interruption-level"], "interruption-level") {
            guard JPushRules.interruptionLevels.contains(level) else {
                throw JPushError(.invalidParameter, "Invalid param - interruption-level must be one of active, critical, passive, time-sensitive")
            }
            ios.interruptionLevel = level
        }
        if let extras = value["extras"] {
            guard case .object(let pairs) = extras else { throw JPushError(.invalidParameter, "Invalid param - notification.ios.extras should be an object") }
            ios.extras = pairs
        }
        return ios
    }

    private static func customMessage(_ value: JSONValue) throws(JPushError) -> CustomMessage {
        guard value.isObject else { throw JPushError(.invalidParameter, "Invalid param - message should be an object") }
        guard let contentValue = value["msg_content"] else { throw JPushError(.missingParameter, "Missing parameter: message.msg_content") }
        guard let content = contentValue.stringValue else { throw JPushError(.invalidParameter, "Invalid param - message.msg_content should be a string") }
        guard value.description.utf8.count <= JPushRules.maximumMessageBytes else {
            throw JPushError(.messageTooLarge, "Message body is too large: message is over \(JPushRules.maximumMessageBytes) bytes")
        }
        var message = CustomMessage(content: content, title: try text(value["title"], "message.title"), contentType: try text(value["content_type"], "message.content_type"))
        if let extras = value["extras"] {
            guard extras.isObject else { throw JPushError(.invalidParameter, "Invalid param - message.extras should be an object") }
            message.extras = extras
        }
        return message
    }

    private static func options(_ value: JSONValue, maximumTimeToLive: Int64) throws(JPushError) -> Options {
        guard value.isObject else { throw JPushError(.invalidParameter, "Invalid param - options should be an object") }
        var options = Options()
        options.sendNo = try integer(value["sendno"], "sendno", in: 0...Int64(Int32.max))
        if let ttl = try integer(value["time_to_live"], "time_to_live", in: 0...maximumTimeToLive) { options.timeToLive = ttl }
        options.overrideMessageID = try integer(value["override_msg_id"], "override_msg_id", in: 1...Int64.max)
        if value["apns_production"] != nil { options.apnsProduction = try flag(value["apns_production"], "apns_production") }
        if let collapseID = try text(value["apns_collapse_id"], "apns_collapse_id") {
            guard collapseID.utf8.count <= JPushRules.maximumCollapseIDBytes else {
                throw JPushError(.invalidParameter, "Invalid param - apns_collapse_id is longer than \(JPushRules.maximumCollapseIDBytes) bytes")
            }
            options.apnsCollapseID = collapseID
        }
        options.bigPushDuration = try integer(value["big_push_duration"], "big_push_duration", in: 0...JPushRules.maximumBigPushMinutes)
        return options
    }

    /// A boolean, or 0 / 1 (the Python client sends `"content-available": 1`).
    private static func flag(_ value: JSONValue?, _ key: String) throws(JPushError) -> Bool {
        guard let value else { return false }
        guard let flag = value.flag else { throw JPushError(.invalidParameter, "Invalid param - \(key) should be a boolean") }
        return flag
    }

    private static func text(_ value: JSONValue?, _ key: String) throws(JPushError) -> String? {
        guard let value else { return nil }
        guard let text = value.stringValue else { throw JPushError(.invalidParameter, "Invalid param - \(key) should be a string") }
        return text
    }

    private static func integer(_ value: JSONValue?, _ key: String, in range: ClosedRange<Int64>) throws(JPushError) -> Int64? {
        guard let value else { return nil }
        guard case .number = value, let number = value.integerValue, range.contains(number) else {
            throw JPushError(.invalidParameter, "Invalid param - \(key) should be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}

extension Optional where Wrapped == JSONValue {
    /// `true`/`false`, or the numbers 1 and 0.
    var flag: Bool? {
        switch self {
        case .bool(let flag)?: flag
        case .number(1)?: true
        case .number(0)?: false
        default: nil
        }
    }
}

extension JSONValue {
    var flag: Bool? { Optional(self).flag }
}
