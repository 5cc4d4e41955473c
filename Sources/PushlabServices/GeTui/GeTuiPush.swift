import PushlabCore

/// A GeTui push body (`/push/single/cid`, `/push/list/message`, `/push/all`), once it passed its
/// checks (`GeTuiPush.parse`): what travels over GeTui's own connection (`push_message`) and what
/// goes to APNs for an iOS phone that is not connected (`push_channel.ios`).
public struct GeTuiPush: Sendable, Equatable {
    /// `push_message`: exactly one of them.
    public enum Message: Sendable, Equatable {
        /// Pass-through data for the app: on iOS, the SDK's payload callback.
        case transmission(String)
        /// A notification GeTui's SDK draws itself: Android only ("iOS系统不展示个推通道下发的通知消息").
        case notification(title: String, body: String)
        case revoke(taskID: String)
    }

    /// `push_channel.ios`: the APNs request for a phone that is not connected.
    public struct IOSChannel: Sendable, Equatable {
        public var type = "notify"
        /// Apple's `aps` dictionary as sent (`alert`, `sound`, `content-available`, …).
        public var aps: [(key: String, value: JSONValue)] = []
        /// `"+1"`, `"-1"` or `"5"`: GeTui resolves it against the badge it keeps for the phone.
        public var autoBadge: BadgeChange?
        /// The app's data, a top-level `payload` key of the APNs payload.
        public var payload: String?
        public var collapseID: String?

        public init() {}

        public static func == (lhs: IOSChannel, rhs: IOSChannel) -> Bool {
            lhs.type == rhs.type && JSONValue.object(lhs.aps) == JSONValue.object(rhs.aps) && lhs.autoBadge == rhs.autoBadge
                && lhs.payload == rhs.payload && lhs.collapseID == rhs.collapseID
        }
    }

    public var requestID: String?
    public var groupName: String?
    /// `audience.cid` (toSingle: one; toList: up to 1,000), or nil for `/push/all` and
    /// `/push/list/message`.
    public var clientIDs: [String]?
    /// How long GeTui keeps the message for a phone that is not connected, in milliseconds; nil:
    /// not kept (`-1`) [DOC].
    public var timeToLiveMilliseconds: Int64? = GeTuiRules.defaultTimeToLiveMilliseconds
    /// `settings.strategy`: per channel (`default`, `ios`, …), 1 GeTui's connection when online else
    /// the vendor's, 2 the vendor's (APNs) only, 3 GeTui's only, 4 the vendor's first [DOC].
    public var strategy: [String: Int] = [:]
    public var message: Message
    public var ios: IOSChannel?

    public init(message: Message) {
        self.message = message
    }

    /// The strategy for iOS phones (`ios`, else `default`, else 1).
    public var iosStrategy: Int { strategy["ios"] ?? strategy["default"] ?? 1 }
}

public enum GeTuiRules {
    /// Two hours (GeTui's current documentation; older copies say one).
    public static let defaultTimeToLiveMilliseconds: Int64 = 7_200_000
    public static let maximumTimeToLiveMilliseconds: Int64 = 3 * 86_400_000
    public static let requestIDLength = 10...32
    public static let maximumListClientIDs = 1_000
    public static let maximumTransmissionBytes = 3_072
}

extension GeTuiPush {
    public enum Endpoint: Sendable {
        /// `/push/single/cid`: `request_id` and one cid.
        case single
        /// `/push/list/message`: the message of a list push, without an audience.
        case listMessage
        /// `/push/all`: `audience` is `"all"`.
        case all
    }

    public static func parse(_ body: [UInt8], for endpoint: Endpoint) throws(GeTuiError) -> GeTuiPush {
        guard let json = try? JSONParser.parse(body), json.isObject else { throw GeTuiError(.invalidParameter, "request body must be JsonString") }
        guard let pushMessage = json["push_message"] else { throw GeTuiError.empty("push_message") }
        var push = GeTuiPush(message: try message(pushMessage))
        if let requestID = json["request_id"] {
            guard let text = requestID.stringValue, GeTuiRules.requestIDLength.contains(text.count) else { throw GeTuiError.invalid("request_id") }
            push.requestID = text
        } else if endpoint != .listMessage {
            throw GeTuiError.empty("request_id")
        }
        if let group = json["group_name"] {
            guard let text = group.stringValue, text.count <= 100, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw GeTuiError.invalid("group_name")
            }
            push.groupName = text
        }
        switch endpoint {
        case .single:
            guard let audience = json["audience"] else { throw GeTuiError.empty("audience") }
            guard case .array(let cids)? = audience["cid"], !cids.isEmpty else { throw GeTuiError.empty("cid") }
            guard cids.count == 1 else { throw GeTuiError(.invalidParameter, "cid size over limit") }
            guard let cid = cids[0].stringValue, !cid.isEmpty else { throw GeTuiError.invalid("cid") }
            push.clientIDs = [cid]
        case .all:
            guard json["audience"]?.stringValue == "all" else { throw GeTuiError.invalid("audience") }
        case .listMessage:
            break
        }
        if let settings = json["settings"] { try push.readSettings(settings) }
        if let channel = json["push_channel"] {
            guard channel.isObject else { throw GeTuiError(.invalidParameter, "push_channel must be JsonString") }
            if let ios = channel["ios"] { push.ios = try iosChannel(ios) }
        }
        return push
    }

    private static func message(_ value: JSONValue) throws(GeTuiError) -> Message {
        guard value.isObject else { throw GeTuiError.invalid("push_message") }
        let given = ["notification", "transmission", "revoke"].filter { value[$0] != nil }
        guard given.count == 1 else { throw GeTuiError(.invalidParameter, "please choose one of notification and transmission and revoke") }
        if let transmission = value["transmission"] {
            guard let text = transmission.stringValue, !text.isEmpty else { throw GeTuiError.empty("transmission") }
            guard text.utf8.count <= GeTuiRules.maximumTransmissionBytes else { throw GeTuiError(.invalidParameter, "transmission size over limit") }
            return .transmission(text)
        }
        if let notification = value["notification"] {
            guard let title = notification["title"]?.stringValue, !title.isEmpty else { throw GeTuiError.empty("title") }
            guard let body = notification["body"]?.stringValue, !body.isEmpty else { throw GeTuiError.empty("body") }
            return .notification(title: title, body: body)
        }
        guard let taskID = value["revoke"]?["old_task_id"]?.stringValue, !taskID.isEmpty else { throw GeTuiError.empty("old_task_id") }
        return .revoke(taskID: taskID)
    }

    private mutating func readSettings(_ value: JSONValue) throws(GeTuiError) {
        guard value.isObject else { throw GeTuiError(.invalidParameter, "settings must be JsonString") }
        if let ttl = value["ttl"] {
            guard case .number = ttl, let milliseconds = ttl.integerValue,
                  milliseconds == -1 || (0...GeTuiRules.maximumTimeToLiveMilliseconds).contains(milliseconds)
            else { throw GeTuiError.invalid("ttl") }
            timeToLiveMilliseconds = milliseconds == -1 ? nil : milliseconds
        }
        if let strategy = value["strategy"] {
            guard case .object(let members) = strategy else { throw GeTuiError.invalid("strategy") }
            for (channel, choice) in members {
                guard let number = choice.integerValue, (1...4).contains(number) else { throw GeTuiError.invalid("strategy.\(channel)") }
                self.strategy[channel] = Int(number)
            }
        }
    }

    private static func iosChannel(_ value: JSONValue) throws(GeTuiError) -> IOSChannel {
        guard value.isObject else { throw GeTuiError.invalid("ios") }
        var channel = IOSChannel()
        if let type = value["type"] {
            guard let text = type.stringValue, ["notify", "voip"].contains(text) else { throw GeTuiError.invalid("type") }
            channel.type = text
        }
        if let aps = value["aps"] {
            guard case .object(let members) = aps else { throw GeTuiError(.invalidParameter, "aps must be JsonString") }
            channel.aps = members
        }
        if let badge = value["auto_badge"] {
            guard let text = badge.stringValue, !text.isEmpty, let parsed = BadgeChange(text: text) else { throw GeTuiError.invalid("auto_badge") }
            channel.autoBadge = parsed
        }
        if let payload = value["payload"] {
            guard let text = payload.stringValue else { throw GeTuiError.invalid("payload") }
            channel.payload = text
        }
        if let collapseID = value["apns-collapse-id"] {
            guard let text = collapseID.stringValue, text.utf8.count <= 64 else { throw GeTuiError.invalid("apns-collapse-id") }
            channel.collapseID = text
        }
        return channel
    }
}
