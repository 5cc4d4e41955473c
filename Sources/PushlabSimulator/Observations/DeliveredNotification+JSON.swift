import PushlabCore

extension DeliveredNotification {
    /// The fields a `notificationCenter added` observation shows, enough to rebuild the entry.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("identifier", .string(identifier)), ("isLocal", .bool(isLocal)), ("trigger", .string(trigger)), ("deliveredAt", .number(Double(deliveredAt)))]
        if let collapseID { members.append(("collapseId", .string(collapseID))) }
        members.append(("content", content.json))
        return .object(members)
    }

    /// Reads back `json`.
    public init?(json: JSONValue) {
        guard let isLocal = json["isLocal"].flatMap({ if case .bool(let value) = $0 { value } else { nil } }),
              let trigger = json["trigger"]?.stringValue, let deliveredAt = json["deliveredAt"]?.integerValue,
              let content = json["content"].flatMap(NotificationContent.init(json:)) else { return nil }
        self.init(
            identifier: json["identifier"]?.stringValue ?? "", isLocal: isLocal,
            collapseID: json["collapseId"]?.stringValue, content: content, deliveredAt: deliveredAt, trigger: trigger
        )
    }
}

extension NotificationContent {
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        func put(_ key: String, _ text: String?) { if let text { members.append((key, .string(text))) } }
        put("title", title)
        put("subtitle", subtitle)
        put("body", body)
        put("sound", sound)
        if let badge { members.append(("badge", .number(Double(badge)))) }
        put("category", category)
        put("threadId", threadID)
        if contentAvailable { members.append(("contentAvailable", .bool(true))) }
        if mutableContent { members.append(("mutableContent", .bool(true))) }
        put("interruptionLevel", interruptionLevel)
        members.append(("userInfo", userInfo))
        return .object(members)
    }

    public init?(json: JSONValue) {
        guard json.isObject, let userInfo = json["userInfo"] else { return nil }
        func flag(_ key: String) -> Bool { if case .bool(true)? = json[key] { true } else { false } }
        self.init(
            title: json["title"]?.stringValue, subtitle: json["subtitle"]?.stringValue, body: json["body"]?.stringValue,
            sound: json["sound"]?.stringValue, badge: json["badge"]?.integerValue.map { Int(clamping: $0) },
            category: json["category"]?.stringValue, threadID: json["threadId"]?.stringValue,
            contentAvailable: flag("contentAvailable"), mutableContent: flag("mutableContent"),
            interruptionLevel: json["interruptionLevel"]?.stringValue, userInfo: userInfo
        )
    }
}
