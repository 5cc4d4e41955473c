import PushlabCore

extension DeliveredNotification {
    /// The entry as JSON text (what the store keeps and a `notificationCenter added` observation
    /// shows), enough to rebuild it.
    public var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writeFields(to: &writer)
        writer.endObject()
        return writer.text
    }

    public var json: JSONValue { (try? JSONParser.parse(jsonText)) ?? .object([]) }

    /// `jsonText` as bytes, the content's written before (`NotificationContent.jsonBytes`): the
    /// entries of one payload share their content.
    public func jsonBytes(content: [UInt8]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writeOwnFields(to: &writer)
        writer.field("content", json: content)
        writer.endObject()
        return writer.bytes
    }

    /// The entry's own fields as JSON text, without its content (which a store keeps apart).
    public var fieldsText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writeOwnFields(to: &writer)
        writer.endObject()
        return writer.text
    }

    func writeFields(to writer: inout JSONWriter) {
        writeOwnFields(to: &writer)
        writer.key("content")
        content.write(to: &writer)
    }

    private func writeOwnFields(to writer: inout JSONWriter) {
        writer.field("identifier", identifier)
        writer.field("isLocal", isLocal)
        writer.field("trigger", trigger)
        writer.field("deliveredAt", deliveredAt)
        writer.field("collapseId", collapseID)
    }

    /// Reads back `fieldsText` for an entry whose content is `other`'s, sharing it in memory;
    /// nil when the fields do not parse or the identifier cannot share it (see `init(apnsID:…)`).
    public init?(fields json: JSONValue, sharingContentWith other: DeliveredNotification) {
        guard json["isLocal"] == .bool(other.isLocal), json["trigger"]?.stringValue == other.trigger,
              json["collapseId"]?.stringValue == other.collapseID, let identifier = json["identifier"]?.stringValue,
              let deliveredAt = json["deliveredAt"]?.integerValue else { return nil }
        self.init(apnsID: identifier, deliveredAt: deliveredAt, shared: other.sharedPart)
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
    /// The content as JSON text, as an entry's `content` field holds it.
    public var jsonText: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    /// The same as bytes.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("title", title)
        writer.field("subtitle", subtitle)
        writer.field("body", body)
        writer.field("sound", sound)
        writer.field("badge", badge.map(Int64.init))
        writer.field("category", category)
        writer.field("threadId", threadID)
        if contentAvailable { writer.field("contentAvailable", true) }
        if mutableContent { writer.field("mutableContent", true) }
        writer.field("interruptionLevel", interruptionLevel)
        writer.field("userInfo", userInfo)
        writer.endObject()
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
