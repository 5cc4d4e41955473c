import PushlabCore

/// The report API's user statistics (`GET /v3/users`): for each hour, day or month, an app's new
/// users (registrations), online users (SDKs connected to JPush at some moment of it) and active
/// users (apps opened: the SDK logged in on screen). Counted on Beijing time, where JPush's
/// portal counts [INF].
public struct JPushUserStatistics: Sendable {
    private struct Device {
        var appKey: String
        var registeredAt: EpochMilliseconds
        /// Connections, oldest first; `end` nil while connected.
        var sessions: [(start: EpochMilliseconds, end: EpochMilliseconds?)] = []
    }

    private var devices: [String: Device] = [:]
    /// A phone's older connections are forgotten past this many: the statistics' range is two
    /// months at most, and a test does not open an app more often than this.
    static let sessionsKept = 500

    public init() {}

    public mutating func registered(_ registrationID: String, appKey: String, at time: EpochMilliseconds) {
        devices[registrationID] = Device(appKey: appKey, registeredAt: time)
    }

    public mutating func connected(_ registrationID: String, at time: EpochMilliseconds) {
        guard var device = devices[registrationID] else { return }
        if device.sessions.last.map({ $0.end == nil }) == true { return }
        device.sessions.append((time, nil))
        if device.sessions.count > Self.sessionsKept { device.sessions.removeFirst(device.sessions.count - Self.sessionsKept) }
        devices[registrationID] = device
    }

    public mutating func disconnected(_ registrationID: String, at time: EpochMilliseconds) {
        guard let last = devices[registrationID]?.sessions.indices.last, devices[registrationID]!.sessions[last].end == nil else { return }
        devices[registrationID]!.sessions[last].end = time
    }

    /// An app's figures for each period of `query`, every period listed [DOC].
    public func report(appKey: String, _ query: JPushUsersQuery, now: EpochMilliseconds) -> JPushUsersReport {
        let own = devices.values.filter { $0.appKey == appKey }
        let items = (0..<query.duration).map { index in
            let period = query.period(index)
            var figures = JPushUsersReport.Figures()
            for device in own {
                if period.contains(device.registeredAt) { figures.new += 1 }
                if device.sessions.contains(where: { $0.start < period.upperBound && ($0.start >= period.lowerBound || ($0.end ?? now) > period.lowerBound) }) { figures.online += 1 }
                if device.sessions.contains(where: { period.contains($0.start) }) { figures.active += 1 }
            }
            return JPushUsersReport.Item(time: query.label(index), ios: figures)
        }
        return JPushUsersReport(query: query, items: items)
    }
}

/// `time_unit`, `start` and `duration` of a user statistics request, checked as JPush checks
/// them [DOC]: HOUR, DAY or MONTH; `start` written `yyyy-MM-dd HH`, `yyyy-MM-dd` or `yyyy-MM`
/// (3004 when it does not match the unit); only the last 60 days, and hours of today only (3005).
/// At most 24 hours, 60 days or 2 months [IMPL: JPush's Ruby client's limits].
public struct JPushUsersQuery: Sendable, Equatable {
    public enum TimeUnit: String, Sendable, CaseIterable {
        case hour = "HOUR", day = "DAY", month = "MONTH"

        var maximumDuration: Int {
            switch self {
            case .hour: 24
            case .day: 60
            case .month: 2
            }
        }

        var format: String {
            switch self {
            case .hour: "yyyy-MM-dd HH"
            case .day: "yyyy-MM-dd"
            case .month: "yyyy-MM"
            }
        }
    }

    /// China Standard Time, UTC+8.
    static let beijingOffsetSeconds = 8 * 3600
    static let daysKept = 60

    public var unit: TimeUnit
    public var start: (year: Int, month: Int, day: Int, hour: Int)
    public var startText: String
    public var duration: Int

    public static func == (a: Self, b: Self) -> Bool {
        a.unit == b.unit && a.startText == b.startText && a.duration == b.duration
    }

    public static func parse(timeUnit: String?, start: String?, duration: String?, now: EpochMilliseconds) -> Result<Self, JPushError> {
        guard let timeUnit, let unit = TimeUnit(rawValue: timeUnit) else {
            return .failure(JPushError(.reportTimeUnitMismatch, "time_unit must be HOUR, DAY or MONTH"))
        }
        guard let start, let fields = Self.fields(of: start, unit: unit) else {
            return .failure(JPushError(.reportTimeUnitMismatch, "start must be written \(unit.format) for \(unit.rawValue)"))
        }
        guard let duration, let count = Int(duration), count >= 1 else {
            return .failure(JPushError(.reportTimeUnitMismatch, "duration must be a whole number of \(unit.rawValue.lowercased())s, 1 or more"))
        }
        let query = JPushUsersQuery(unit: unit, start: fields, startText: start, duration: count)
        let today = CivilTime.fields(now, utcOffsetSeconds: beijingOffsetSeconds)
        let midnight = CivilTime.time(year: today.year, month: today.month, day: today.day, hour: 0, minute: 0, second: 0, utcOffsetSeconds: beijingOffsetSeconds)
        let earliest: EpochMilliseconds = switch unit {
        case .hour: midnight
        case .day: midnight - Int64(daysKept - 1) * 86_400_000
        case .month: CivilTime.time(year: today.month == 1 ? today.year - 1 : today.year, month: today.month == 1 ? 12 : today.month - 1, day: 1,
                                    hour: 0, minute: 0, second: 0, utcOffsetSeconds: beijingOffsetSeconds)
        }
        guard count <= unit.maximumDuration, query.period(0).lowerBound >= earliest else {
            return .failure(JPushError(.reportRangeTooLong, unit == .hour
                ? "Hours of today only, 24 at most" : "Only user statistics within the last 60 days can be queried (\(unit.maximumDuration) \(unit.rawValue.lowercased())s at most)"))
        }
        return .success(query)
    }

    private static func fields(of text: String, unit: TimeUnit) -> (year: Int, month: Int, day: Int, hour: Int)? {
        let characters = Array(text)
        guard characters.count == unit.format.count else { return nil }
        for (character, pattern) in zip(characters, unit.format) {
            if pattern.isLetter ? !character.isASCII || !character.isNumber : character != pattern { return nil }
        }
        func number(_ from: Int, _ length: Int) -> Int { Int(String(characters[from..<from + length]))! }
        let year = number(0, 4), month = number(5, 2)
        let day = unit == .month ? 1 : number(8, 2)
        let hour = unit == .hour ? number(11, 2) : 0
        guard (1...12).contains(month), (1...CivilTime.daysIn(year: year, month: month)).contains(day), (0...23).contains(hour) else { return nil }
        return (year, month, day, hour)
    }

    /// The `index`th period, as epoch milliseconds.
    func period(_ index: Int) -> Range<EpochMilliseconds> {
        periodStart(index)..<periodStart(index + 1)
    }

    private func periodStart(_ index: Int) -> EpochMilliseconds {
        let offset = Self.beijingOffsetSeconds
        switch unit {
        case .hour:
            return CivilTime.time(year: start.year, month: start.month, day: start.day, hour: start.hour, minute: 0, second: 0, utcOffsetSeconds: offset) + Int64(index) * 3_600_000
        case .day:
            return CivilTime.time(year: start.year, month: start.month, day: start.day, hour: 0, minute: 0, second: 0, utcOffsetSeconds: offset) + Int64(index) * 86_400_000
        case .month:
            let months = start.year * 12 + (start.month - 1) + index
            return CivilTime.time(year: months / 12, month: months % 12 + 1, day: 1, hour: 0, minute: 0, second: 0, utcOffsetSeconds: offset)
        }
    }

    /// The `index`th period written as `start` is.
    func label(_ index: Int) -> String {
        let fields = CivilTime.fields(periodStart(index), utcOffsetSeconds: Self.beijingOffsetSeconds)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        let month = "\(fields.year)-\(two(fields.month))"
        switch unit {
        case .hour: return "\(month)-\(two(fields.day)) \(two(fields.hour))"
        case .day: return "\(month)-\(two(fields.day))"
        case .month: return month
        }
    }
}

/// `{"time_unit","start","duration","items":[{"time"},{"time","ios":{"active":1,…}}]}`: every
/// period, with only the figures it has [DOC]. Pushlab simulates iPhones: there is no `android`.
public struct JPushUsersReport: Sendable, Equatable {
    public struct Figures: Sendable, Equatable {
        public var new = 0
        public var online = 0
        public var active = 0
    }

    public struct Item: Sendable, Equatable {
        public var time: String
        public var ios: Figures
    }

    public var query: JPushUsersQuery
    public var items: [Item]

    public var json: JSONValue {
        .object([
            ("time_unit", .string(query.unit.rawValue)), ("start", .string(query.startText)), ("duration", .number(Double(query.duration))),
            ("items", .array(items.map { item in
                let figures = [("new", item.ios.new), ("online", item.ios.online), ("active", item.ios.active)]
                    .filter { $0.1 > 0 }.map { ($0.0, JSONValue.number(Double($0.1))) }
                return .object([("time", .string(item.time))] + (figures.isEmpty ? [] : [("ios", .object(figures))]))
            })),
        ])
    }
}
