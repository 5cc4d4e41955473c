import PushlabCore

/// A notification the app schedules itself, without APNs (reference section 6).
public struct LocalNotification: Sendable, Codable, Equatable {
    public var identifier: String
    public var content: NotificationContent
    public var trigger: LocalTrigger
    /// When it fires next; nil for a region trigger (it fires on a region event).
    public var nextFireTime: EpochMilliseconds?

    public init(identifier: String, content: NotificationContent, trigger: LocalTrigger, nextFireTime: EpochMilliseconds? = nil) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
        self.nextFireTime = nextFireTime
    }
}

/// What fires a local notification.
public enum LocalTrigger: Sendable, Codable, Equatable {
    /// Seconds after scheduling; repeating every `seconds` (Apple requires at least 60 to repeat).
    case timeInterval(seconds: Double, repeats: Bool)
    /// A fire date, optionally repeating every calendar unit (legacy `repeatInterval`).
    case date(EpochMilliseconds, repeatInterval: RepeatInterval?)
    /// The next time matching the components (in the device's time zone), optionally every time.
    case calendar(CalendarMatch, repeats: Bool)
    /// Entering and/or leaving a region; once or every time.
    case region(identifier: String, onEntry: Bool, onExit: Bool, repeats: Bool)

    public enum RepeatInterval: String, Sendable, Codable, CaseIterable {
        case minute, hour, day, week, month, year
    }

    /// As `UNNotificationRequest.trigger`'s class would be named, without the prefix.
    public var kindName: String {
        switch self {
        case .timeInterval: "timeInterval"
        case .date: "date"
        case .calendar: "calendar"
        case .region: "location"
        }
    }

    public var isRepeating: Bool {
        switch self {
        case .timeInterval(_, let repeats), .calendar(_, let repeats), .region(_, _, _, let repeats): repeats
        case .date(_, let interval): interval != nil
        }
    }
}

/// Date components to match, as `UNCalendarNotificationTrigger` takes them; nil matches any.
public struct CalendarMatch: Sendable, Codable, Equatable {
    public var month: Int?
    public var day: Int?
    /// 1 = Sunday ... 7 = Saturday, as `NSDateComponents.weekday`.
    public var weekday: Int?
    public var hour: Int?
    public var minute: Int?
    public var second: Int?

    public init(month: Int? = nil, day: Int? = nil, weekday: Int? = nil, hour: Int? = nil, minute: Int? = nil, second: Int? = nil) {
        self.month = month
        self.day = day
        self.weekday = weekday
        self.hour = hour
        self.minute = minute
        self.second = second
    }
}
