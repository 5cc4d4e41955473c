import PushlabCore

/// One request JPush (or GeTui) makes to APNs for one device, as a provider makes it: the path,
/// the `apns-*` headers and the payload. The service's adapter sends it to Pushlab's own APNs
/// with the credentials uploaded to the service's portal, so it is checked, logged and delivered
/// as any provider's push is.
public struct APNsRequestPlan: Sendable, Equatable {
    public var deviceToken: String
    public var environment: APNsEnvironment
    public var topic: String
    public var pushType: String
    public var priority: Int
    public var collapseID: String?
    public var expiration: Int64?
    public var payload: String

    public var path: String { "/3/device/\(deviceToken)" }

    public var headers: [(name: String, value: String)] {
        var headers = [("apns-topic", topic), ("apns-push-type", pushType), ("apns-priority", String(priority))]
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        if let expiration { headers.append(("apns-expiration", String(expiration))) }
        return headers
    }

    public static func == (lhs: APNsRequestPlan, rhs: APNsRequestPlan) -> Bool {
        lhs.deviceToken == rhs.deviceToken && lhs.environment == rhs.environment && lhs.topic == rhs.topic && lhs.pushType == rhs.pushType
            && lhs.priority == rhs.priority && lhs.collapseID == rhs.collapseID && lhs.expiration == rhs.expiration && lhs.payload == rhs.payload
    }
}

extension JPushPush {
    /// What JPush sends APNs for one iOS device of the audience. `storedBadge` is the badge JPush
    /// keeps for the device (what its SDK last set), for `"+N"`; `userID` is JPush's own number
    /// for the device (`_j_uid`).
    ///
    /// - `alert`, `sound`, `badge`, `content-available`, `mutable-content`, `category`,
    ///   `thread-id` and `interruption-level` go into `aps` under Apple's names, the flags as 1
    ///   [DOC: JPush's payload example; the flags' form INF].
    /// - Each key of `extras` becomes a top-level key; JPush adds `_j_msgid`, `_j_business` and
    ///   `_j_uid` [DOC for `_j_msgid`; the other two as seen in delivered payloads].
    /// - An empty alert string shows nothing, so it is left out [DOC: "内容为空则不展示"].
    /// - No `apns-expiration`: `time_to_live` has no effect on iOS notifications [DOC]; APNs keeps
    ///   the notification as it keeps any.
    public func apnsRequest(
        for deviceToken: String, topic: String, messageID: Int64, userID: Int64, storedBadge: Int
    ) -> (plan: APNsRequestPlan, badge: Int?)? {
        guard let ios = iosNotification else { return nil }
        var aps: [(key: String, value: JSONValue)] = []
        let showsAlert: Bool
        switch ios.alert {
        case .string(let text) where text.isEmpty: showsAlert = false
        default:
            aps.append(("alert", ios.alert))
            showsAlert = true
        }
        let badge = ios.badge.map { $0.resolved(against: storedBadge) }
        if let badge { aps.append(("badge", .number(Double(badge)))) }
        if let sound = ios.sound { aps.append(("sound", sound)) }
        if ios.contentAvailable { aps.append(("content-available", .number(1))) }
        if ios.mutableContent { aps.append(("mutable-content", .number(1))) }
        if let category = ios.category { aps.append(("category", .string(category))) }
        if let threadID = ios.threadID { aps.append(("thread-id", .string(threadID))) }
        if let level = ios.interruptionLevel { aps.append(("interruption-level", .string(level))) }

        var writer = JSONWriter()
        writer.beginObject()
        writer.field("aps", JSONValue.object(aps))
        for (key, value) in ios.extras where !JPushPush.ownPayloadKeys.contains(key) { writer.field(key, value) }
        writer.field("_j_business", Int64(1))
        writer.field("_j_msgid", messageID)
        writer.field("_j_uid", userID)
        writer.endObject()

        let visible = showsAlert || badge != nil || ios.sound != nil
        let background = !visible && ios.contentAvailable
        let plan = APNsRequestPlan(
            deviceToken: deviceToken, environment: options.apnsProduction ? .production : .development, topic: topic,
            pushType: background ? "background" : "alert", priority: background ? 5 : 10, collapseID: options.apnsCollapseID,
            expiration: nil, payload: writer.text
        )
        return (plan, badge)
    }

    /// Keys JPush writes itself; an `extras` key of the same name does not replace them.
    static let ownPayloadKeys: Set<String> = ["aps", "_j_business", "_j_msgid", "_j_uid"]
}
