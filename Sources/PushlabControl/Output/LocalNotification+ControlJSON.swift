import PushlabCore
import PushlabSimulator

extension LocalNotification {
    /// The notification as the local-notifications routes show it; the trigger in the shape a
    /// POST takes it.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("identifier", identifier)
        fields.add("content", content.controlJSON)
        fields.add("trigger", trigger.controlJSON)
        fields.addTime("nextFireTime", nextFireTime)
        return fields.json
    }
}

extension NotificationContent {
    /// The fields Notification Center entries show in observations.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("title", title)
        fields.add("subtitle", subtitle)
        fields.add("body", body)
        fields.add("sound", sound)
        fields.add("badge", badge)
        fields.add("category", category)
        fields.add("threadId", threadID)
        if contentAvailable { fields.add("contentAvailable", true) }
        if mutableContent { fields.add("mutableContent", true) }
        fields.add("interruptionLevel", interruptionLevel)
        fields.add("userInfo", userInfo)
        return fields.json
    }
}

extension LocalTrigger {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        switch self {
        case .timeInterval(let seconds, let repeats):
            fields.add("type", "timeInterval")
            fields.add("seconds", seconds)
            fields.add("repeats", repeats)
        case .date(let time, let repeatInterval):
            fields.add("type", "date")
            fields.add("at", ISO8601Milliseconds.format(time))
            fields.add("repeatInterval", repeatInterval?.rawValue)
        case .calendar(let match, let repeats):
            fields.add("type", "calendar")
            fields.add("month", match.month)
            fields.add("day", match.day)
            fields.add("weekday", match.weekday)
            fields.add("hour", match.hour)
            fields.add("minute", match.minute)
            fields.add("second", match.second)
            fields.add("repeats", repeats)
        case .region(let identifier, let onEntry, let onExit, let repeats):
            fields.add("type", "region")
            fields.add("region", identifier)
            fields.add("onEntry", onEntry)
            fields.add("onExit", onExit)
            fields.add("repeats", repeats)
        }
        return fields.json
    }
}
