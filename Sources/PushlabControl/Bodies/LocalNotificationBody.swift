import PushlabCore
import PushlabSimulator

/// `POST /v1/devices/{id}/apps/{bundleId}/local-notifications`: what the app asks
/// `UNUserNotificationCenter` (or `scheduleLocalNotification:`) to do.
struct LocalNotificationBody: ControlBody {
    var identifier: String
    var title: String?
    var subtitle: String?
    var body: String?
    var sound: String?
    var badge: Int?
    var category: String?
    var threadId: String?
    var userInfo: FreeFormJSON?
    var trigger: TriggerBody?
    /// Present it at once (legacy `presentLocalNotificationNow:`) instead of scheduling it.
    var presentNow: Bool?

    struct TriggerBody: Decodable {
        var type: String
        var seconds: Double?
        var repeats: Bool?
        var at: String?
        var repeatInterval: String?
        var month: Int?
        var day: Int?
        var weekday: Int?
        var hour: Int?
        var minute: Int?
        var second: Int?
        var region: String?
        var onEntry: Bool?
        var onExit: Bool?
    }

    enum TriggerKind: String, CaseIterable {
        case timeInterval, date, calendar, region
    }

    static let shape = BodyShape.fields(
        ["identifier", "title", "subtitle", "body", "sound", "badge", "category", "threadId", "userInfo", "trigger", "presentNow"],
        ["trigger": .fields([
            "type", "seconds", "repeats", "at", "repeatInterval", "month", "day", "weekday", "hour", "minute", "second",
            "region", "onEntry", "onExit",
        ])]
    )
    static let example = #"{"identifier":"reminder","title":"Stand up","trigger":{"type":"timeInterval","seconds":60}}"#

    /// The notification, with `userInfo` taken from the parsed body (keys in the order sent).
    func notification(json: JSONValue) throws(ControlError) -> LocalNotification {
        let userInfo = json["userInfo"] ?? .object([])
        guard userInfo.isObject else { throw .invalid("userInfo must be a JSON object") }
        if let badge, !(0...NotificationContent.largestBadge).contains(badge) {
            throw .invalid("badge must be from 0 to \(NotificationContent.largestBadge), not \(badge)")
        }
        let content = NotificationContent(
            title: title, subtitle: subtitle, body: body, sound: sound, badge: badge, category: category,
            threadID: threadId, userInfo: userInfo
        )
        return LocalNotification(identifier: identifier, content: content, trigger: try localTrigger())
    }

    /// The trigger; a notification presented now needs none (it is recorded as a time interval).
    private func localTrigger() throws(ControlError) -> LocalTrigger {
        guard let trigger else {
            if presentNow == true { return .timeInterval(seconds: 1, repeats: false) }
            throw .invalid("trigger is required unless presentNow is true, e.g. {\"type\":\"timeInterval\",\"seconds\":60}")
        }
        let kind = try Choice.parse(trigger.type, as: TriggerKind.self, field: "trigger.type")
        let given: [(String, Bool)] = [
            ("seconds", trigger.seconds != nil), ("repeats", trigger.repeats != nil), ("at", trigger.at != nil),
            ("repeatInterval", trigger.repeatInterval != nil), ("month", trigger.month != nil), ("day", trigger.day != nil),
            ("weekday", trigger.weekday != nil), ("hour", trigger.hour != nil), ("minute", trigger.minute != nil),
            ("second", trigger.second != nil), ("region", trigger.region != nil), ("onEntry", trigger.onEntry != nil),
            ("onExit", trigger.onExit != nil),
        ]
        let allowed: Set<String> = switch kind {
        case .timeInterval: ["seconds", "repeats"]
        case .date: ["at", "repeatInterval"]
        case .calendar: ["month", "day", "weekday", "hour", "minute", "second", "repeats"]
        case .region: ["region", "onEntry", "onExit", "repeats"]
        }
        if let (misplaced, _) = given.first(where: { $0.1 && !allowed.contains($0.0) }) {
            throw .invalid("trigger.\(misplaced) does not go with trigger.type \(kind.rawValue) (it takes \(allowed.sorted().joined(separator: ", ")))")
        }
        switch kind {
        case .timeInterval:
            guard let seconds = trigger.seconds else { throw .invalid("trigger.seconds is required for a timeInterval trigger") }
            try InputLimits.checkSpan(seconds, field: "trigger.seconds")
            return .timeInterval(seconds: seconds, repeats: trigger.repeats ?? false)
        case .date:
            guard let at = trigger.at else { throw .invalid("trigger.at is required for a date trigger (ISO 8601)") }
            let time = try ISO8601Input.require(at, field: "trigger.at")
            let interval = try trigger.repeatInterval.map { text throws(ControlError) in
                try Choice.parse(text, as: LocalTrigger.RepeatInterval.self, field: "trigger.repeatInterval")
            }
            return .date(time, repeatInterval: interval)
        case .calendar:
            let match = CalendarMatch(
                month: trigger.month, day: trigger.day, weekday: trigger.weekday,
                hour: trigger.hour, minute: trigger.minute, second: trigger.second
            )
            return .calendar(match, repeats: trigger.repeats ?? false)
        case .region:
            guard let region = trigger.region, !region.isEmpty else { throw .invalid("trigger.region is required for a region trigger") }
            return .region(identifier: region, onEntry: trigger.onEntry ?? true, onExit: trigger.onExit ?? false, repeats: trigger.repeats ?? false)
        }
    }
}
