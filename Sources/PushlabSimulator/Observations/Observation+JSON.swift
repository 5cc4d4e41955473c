import PushlabCore

extension ObservationEvent {
    /// The event's fields as a JSON object: what the store keeps and the control API shows.
    public var details: JSONValue {
        // `detailsText` is the one definition; it always parses.
        (try? JSONParser.parse(detailsText)) ?? .object([])
    }

    /// `details` as JSON text, written directly (the store's hot path).
    public var detailsText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writeFields(to: &writer)
        writer.endObject()
        return writer.text
    }

    /// The fields only, into an object the caller has begun.
    func writeFields(to writer: inout JSONWriter) {
        switch self {
        case .stored(let expiresAt, let replacing):
            writer.field("expiresAt", expiresAt)
            writer.field("replacing", replacing)
        case .delivered(let pushType, let priority):
            writer.field("pushType", pushType)
            writer.field("priority", Int64(priority))
        case .discarded(let reason, let replacedBy):
            writer.field("reason", reason.rawValue)
            writer.field("replacedBy", replacedBy)
        case .throttled(let reason, let until):
            writer.field("reason", reason.rawValue)
            writer.field("until", until)
        case .dropped(let reason, let message):
            writer.field("reason", reason.rawValue)
            writer.field("message", message)
        case .banner(let title, let subtitle, let body, let actions):
            writer.field("title", title)
            writer.field("subtitle", subtitle)
            writer.field("body", body)
            writer.field("actions", .array(actions.map(JSONValue.string)))
        case .sound(let name):
            writer.field("sound", name)
        case .badge(let value):
            writer.field("badge", Int64(value))
        case .notificationCenter(let change, let reason, let entry):
            writer.field("change", change.rawValue)
            writer.field("reason", reason?.rawValue)
            if let entry { entry.writeFields(to: &writer) }
        case .callback(let callback, let appState, let arguments):
            writer.field("callback", callback.rawValue)
            writer.field("appState", appState.rawValue)
            writer.field("userInfo", arguments.userInfo)
            writer.field("launchOptions", arguments.launchOptions)
            writer.field("actionIdentifier", arguments.actionIdentifier)
            writer.field("typedText", arguments.typedText)
            writer.field("responseInfo", arguments.responseInfo)
            writer.field("deviceToken", arguments.deviceToken)
            writer.field("trigger", arguments.trigger)
            writer.field("activityId", arguments.activityID)
            writer.field("activityState", arguments.activityState)
            writer.field("contentState", arguments.contentState)
            writer.field("sdk", arguments.sdk)
        case .appState(let from, let to):
            writer.field("from", from.rawValue)
            writer.field("to", to.rawValue)
        case .liveActivity(let change):
            writer.field("event", change.event.rawValue)
            writer.field("activityId", change.activityID)
            writer.field("state", change.state?.rawValue)
            writer.field("reason", change.reason?.rawValue)
            writer.field("contentState", change.contentState)
            writer.field("message", change.message)
        case .providerRequest(let response):
            writer.field("event", response.event.rawValue)
            writer.field("method", response.method)
            writer.field("url", response.url)
            writer.field("status", response.status.map(Int64.init))
            writer.field("milliseconds", response.milliseconds)
            writer.field("excerpt", response.excerpt)
            writer.field("failure", response.failure?.rawValue)
            writer.field("message", response.message)
        case .system(let event):
            writer.field("event", event.kind.rawValue)
            writer.field("message", event.message)
            if case .object(let fields) = event.details {
                for (key, value) in fields { writer.field(key, value) }
            }
        }
    }

    /// Reads back what `details` wrote; nil when the fields do not fit the kind.
    public init?(kind: ObservationKind, details: JSONValue) {
        let text = { (key: String) in details[key]?.stringValue }
        let number = { (key: String) in details[key]?.integerValue }
        switch kind {
        case .stored:
            guard let expiresAt = number("expiresAt") else { return nil }
            self = .stored(expiresAt: expiresAt, replacing: text("replacing"))
        case .delivered:
            guard let type = text("pushType"), let priority = number("priority") else { return nil }
            self = .delivered(pushType: type, priority: Int(priority))
        case .discarded:
            guard let reason = text("reason").flatMap(DiscardReason.init(rawValue:)) else { return nil }
            self = .discarded(reason, replacedBy: text("replacedBy"))
        case .throttled:
            guard let reason = text("reason").flatMap(ThrottleReason.init(rawValue:)) else { return nil }
            self = .throttled(reason, until: number("until"))
        case .dropped:
            guard let reason = text("reason").flatMap(DropReason.init(rawValue:)) else { return nil }
            self = .dropped(reason, message: text("message"))
        case .banner:
            let actions: [String] = if case .array(let values)? = details["actions"] { values.compactMap(\.stringValue) } else { [] }
            self = .banner(title: text("title"), subtitle: text("subtitle"), body: text("body"), actions: actions)
        case .sound:
            guard let name = text("sound") else { return nil }
            self = .sound(name)
        case .badge:
            guard let value = number("badge") else { return nil }
            self = .badge(Int(value))
        case .notificationCenter:
            guard let change = text("change").flatMap(NotificationCenterChange.init(rawValue:)) else { return nil }
            self = .notificationCenter(
                change, reason: text("reason").flatMap(RemovalReason.init(rawValue:)),
                entry: change == .added ? DeliveredNotification(json: details) : nil
            )
        case .callback:
            guard let callback = text("callback").flatMap(AppCallback.init(rawValue:)),
                  let state = text("appState").flatMap(AppState.init(rawValue:)) else { return nil }
            self = .callback(callback, appState: state, arguments: CallbackArguments(
                userInfo: details["userInfo"], launchOptions: details["launchOptions"],
                actionIdentifier: text("actionIdentifier"), typedText: text("typedText"), responseInfo: details["responseInfo"],
                deviceToken: text("deviceToken"), trigger: text("trigger"), activityID: text("activityId"),
                activityState: text("activityState"), contentState: details["contentState"], sdk: details["sdk"]
            ))
        case .appState:
            guard let from = text("from").flatMap(AppState.init(rawValue:)), let to = text("to").flatMap(AppState.init(rawValue:)) else { return nil }
            self = .appState(from: from, to: to)
        case .liveActivity:
            guard let event = text("event").flatMap(LiveActivityChange.Event.init(rawValue:)) else { return nil }
            self = .liveActivity(LiveActivityChange(
                event, activityID: text("activityId"), state: text("state").flatMap(LiveActivity.State.init(rawValue:)),
                reason: text("reason").flatMap(LiveActivityReason.init(rawValue:)), contentState: details["contentState"],
                message: text("message")
            ))
        case .providerRequest:
            guard let event = text("event").flatMap(ProviderEvent.init(rawValue:)), let method = text("method"), let url = text("url"),
                  let milliseconds = number("milliseconds") else { return nil }
            self = .providerRequest(ProviderResponse(
                event: event, method: method, url: url, status: number("status").map(Int.init), milliseconds: milliseconds,
                excerpt: text("excerpt"), failure: text("failure").flatMap(ProviderResponse.Failure.init(rawValue:)), message: text("message")
            ))
        case .system:
            guard let event = text("event").flatMap(SystemEvent.Kind.init(rawValue:)) else { return nil }
            let members: [(key: String, value: JSONValue)] = if case .object(let all) = details { all } else { [] }
            let rest = members.filter { $0.key != "event" && $0.key != "message" }
            self = .system(SystemEvent(event, message: text("message"), details: .object(rest)))
        }
    }
}

extension Observation {
    /// The whole observation as one JSON object, details inline.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("sequence", .number(Double(sequence))),
            ("time", .string(ISO8601Milliseconds.format(time))),
            ("timeMs", .number(Double(time))),
            ("deviceId", .string(deviceID)),
            ("bundleId", .string(bundleID)),
        ]
        if let notificationID { members.append(("notificationId", .string(notificationID))) }
        members.append(("kind", .string(kind.rawValue)))
        if afterRestart { members.append(("afterRestart", .bool(true))) }
        if case .object(let details) = event.details { members += details }
        return .object(members)
    }
}

extension Observation {
    /// The observation `json` wrote; nil when it is not one.
    public init?(json: JSONValue) {
        guard case .object(let members) = json, let sequence = json["sequence"]?.integerValue, let time = json["timeMs"]?.integerValue,
              let deviceID = json["deviceId"]?.stringValue, let bundleID = json["bundleId"]?.stringValue,
              let kind = json["kind"]?.stringValue.flatMap(ObservationKind.init(rawValue:)) else { return nil }
        let own: Set<String> = ["sequence", "time", "timeMs", "deviceId", "bundleId", "notificationId", "kind", "afterRestart"]
        guard let event = ObservationEvent(kind: kind, details: .object(members.filter { !own.contains($0.key) })) else { return nil }
        self.init(
            sequence: sequence, time: time, deviceID: deviceID, bundleID: bundleID, notificationID: json["notificationId"]?.stringValue, event: event
        )
        afterRestart = json["afterRestart"] == .bool(true)
    }
}
