import PushlabCore
@testable import PushlabServices
import Testing

/// The report API's user statistics (`/v3/users`) on the manual clock: new, online and active
/// users per hour, day or month of Beijing time, and JPush's checks of the query.
@Suite struct JPushUserStatisticsTests {
    /// 2026-03-10 00:00 in Beijing is 2026-03-09 16:00 UTC.
    static let march10 = CivilTime.time(year: 2026, month: 3, day: 10, hour: 0, minute: 0, second: 0, utcOffsetSeconds: 8 * 3600)
    static let hour: EpochMilliseconds = 3_600_000
    static let day: EpochMilliseconds = 86_400_000

    static func query(_ unit: String, _ start: String, _ duration: String, now: EpochMilliseconds = march10 + 2 * day) -> JPushUsersQuery {
        guard case .success(let query) = JPushUsersQuery.parse(timeUnit: unit, start: start, duration: duration, now: now) else {
            Issue.record("\(unit) \(start) \(duration) refused")
            fatalError()
        }
        return query
    }

    static func service() -> (JPushService, [String]) {
        var service = JPushService(seed: 7)
        service.directory.add(JPushServiceTests.app)
        // Day 1: a registers and opens the app twice; b registers in the background (no
        // connection). Day 2: b opens the app and stays connected into day 3.
        let a = service.register(appKey: JPushServiceTests.app.appKey, at: march10 + 9 * hour)!.registrationID
        let b = service.register(appKey: JPushServiceTests.app.appKey, at: march10 + 10 * hour)!.registrationID
        _ = service.connect(a, at: march10 + 9 * hour)
        service.disconnect(a, at: march10 + 9 * hour + 60_000)
        _ = service.connect(a, at: march10 + 20 * hour)
        service.disconnect(a, at: march10 + 21 * hour)
        _ = service.connect(b, at: march10 + day + 23 * hour)
        return (service, [a, b])
    }

    @Test func daysCountNewOnlineAndActiveUsersOnBeijingTime() {
        let (service, _) = Self.service()
        let report = service.users.report(appKey: JPushServiceTests.app.appKey, Self.query("DAY", "2026-03-09", "5"), now: Self.march10 + 2 * Self.day + Self.hour)
        #expect(report.items == [
            .init(time: "2026-03-09", ios: .init()),
            .init(time: "2026-03-10", ios: .init(new: 2, online: 1, active: 1)),
            .init(time: "2026-03-11", ios: .init(new: 0, online: 1, active: 1)),
            // Still connected at midnight: online on the 12th, not active.
            .init(time: "2026-03-12", ios: .init(new: 0, online: 1, active: 0)),
            .init(time: "2026-03-13", ios: .init()),
        ])
        // Every period, with only the figures it has, as JPush's example shows.
        #expect(report.json.description == #"{"time_unit":"DAY","start":"2026-03-09","duration":5,"items":[{"time":"2026-03-09"},{"time":"2026-03-10","ios":{"new":2,"online":1,"active":1}},"#
            + #"{"time":"2026-03-11","ios":{"online":1,"active":1}},{"time":"2026-03-12","ios":{"online":1}},{"time":"2026-03-13"}]}"#)
    }

    @Test func hoursAndMonthsAreTheirOwnPeriods() {
        let (service, _) = Self.service()
        let now = Self.march10 + 3 * Self.day
        let hours = service.users.report(appKey: JPushServiceTests.app.appKey, Self.query("HOUR", "2026-03-10 09", "2", now: Self.march10 + 23 * Self.hour), now: now)
        #expect(hours.items == [
            .init(time: "2026-03-10 09", ios: .init(new: 1, online: 1, active: 1)),
            .init(time: "2026-03-10 10", ios: .init(new: 1, online: 0, active: 0)),
        ])
        let months = service.users.report(appKey: JPushServiceTests.app.appKey, Self.query("MONTH", "2026-02", "2"), now: now)
        #expect(months.items == [.init(time: "2026-02", ios: .init()), .init(time: "2026-03", ios: .init(new: 2, online: 2, active: 2))])
        let other = service.users.report(appKey: "another0app0key000000000", Self.query("MONTH", "2026-03", "1"), now: now)
        #expect(other.items == [.init(time: "2026-03", ios: .init())], "another app's users are not counted")
    }

    @Test func monthsRunAcrossTheYear() {
        let query = Self.query("MONTH", "2025-12", "2", now: Self.march10 - 60 * Self.day)
        #expect(query.label(0) == "2025-12")
        #expect(query.label(1) == "2026-01")
        #expect(query.period(1).lowerBound == CivilTime.time(year: 2026, month: 1, day: 1, hour: 0, minute: 0, second: 0, utcOffsetSeconds: 8 * 3600))
    }

    @Test func queriesAreCheckedAsJPushChecksThem() {
        let now = Self.march10 + 10 * Self.hour
        func code(_ unit: String?, _ start: String?, _ duration: String?) -> JPushErrorCode? {
            guard case .failure(let error) = JPushUsersQuery.parse(timeUnit: unit, start: start, duration: duration, now: now) else { return nil }
            return error.code
        }
        #expect(code(nil, "2026-03-10", "1") == .reportTimeUnitMismatch)
        #expect(code("WEEK", "2026-03-10", "1") == .reportTimeUnitMismatch)
        #expect(code("DAY", "2026-3-10", "1") == .reportTimeUnitMismatch, "written yyyy-MM-dd")
        #expect(code("DAY", "2026-02-30", "1") == .reportTimeUnitMismatch, "no such day")
        #expect(code("HOUR", "2026-03-10", "1") == .reportTimeUnitMismatch, "an hour is written yyyy-MM-dd HH")
        #expect(code("DAY", "2026-03-10", nil) == .reportTimeUnitMismatch)
        #expect(code("DAY", "2026-03-10", "0") == .reportTimeUnitMismatch)
        #expect(code("DAY", "2026-01-10", "60") == nil, "the 60th day back")
        #expect(code("DAY", "2026-01-09", "1") == .reportRangeTooLong, "61 days back")
        #expect(code("DAY", "2026-03-10", "61") == .reportRangeTooLong, "60 days at most")
        #expect(code("HOUR", "2026-03-10 08", "24") == nil)
        #expect(code("HOUR", "2026-03-10 08", "25") == .reportRangeTooLong, "24 hours at most")
        #expect(code("HOUR", "2026-03-09 23", "2") == .reportRangeTooLong, "hours of today only")
        #expect(code("MONTH", "2026-02", "2") == nil)
        #expect(code("MONTH", "2026-01", "1") == .reportRangeTooLong, "this month and the last")
        #expect(code("MONTH", "2026-03", "3") == .reportRangeTooLong, "2 months at most")
        #expect(JPushErrorCode.reportRangeTooLong.httpStatus == 400)
    }
}
