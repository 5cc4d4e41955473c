@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 6: local notification triggers, fired by `advanceClock` at their exact times.
@Suite("6 Local notification triggers")
struct LocalTriggerTests {
    private static func firings(_ h: SimulatorHarness, _ id: String) -> [EpochMilliseconds] {
        h.all.about(id).delivered.map(\.time)
    }

    @Test("Time interval: fires exactly when due, not a millisecond before; then leaves the list")
    func timeInterval() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("tea", .timeInterval(seconds: 90, repeats: false)))
        #expect(try h.pending().map(\.nextFireTime) == [Fixture.start + 90 * Fixture.second])
        try h.advance(90 * Fixture.second - 1)
        #expect(Self.firings(h, "tea").isEmpty)
        #expect(try h.pending().map(\.identifier) == ["tea"])
        try h.advance(1)
        #expect(Self.firings(h, "tea") == [Fixture.start + 90 * Fixture.second])
        #expect(try h.pending().isEmpty, "a fired non-repeating notification leaves the list")
        #expect(try h.notificationCenterIDs() == ["tea"])
    }

    @Test("Time interval, repeating: every interval, at exact times, within one long advance")
    func repeatingInterval() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("stretch", .timeInterval(seconds: 60, repeats: true)))
        try h.advance(5 * Fixture.minute + 30 * Fixture.second)
        #expect(Self.firings(h, "stretch") == (1...5).map { Fixture.start + Int64($0) * Fixture.minute })
        #expect(try h.pending().first?.nextFireTime == Fixture.start + 6 * Fixture.minute, "a repeating one stays listed")
    }

    @Test("A move of the clock that would fire more than 100,000 local notifications is refused before anything moves")
    func clockMoveOverTheFiringLimitRefused() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("stretch", .timeInterval(seconds: 60, repeats: true)))
        let limit = Int64(DeviceSimulator.firingsPerClockMove)
        #expect(throws: SimulatorError.self) { try h.advance(100 * 365 * Fixture.day) }
        #expect(throws: SimulatorError.self) { try h.simulator.setClock(Fixture.start + (limit + 1) * Fixture.minute) }
        #expect(h.simulator.clock.now() == Fixture.start, "the clock did not move")
        #expect(Self.firings(h, "stretch").isEmpty)
        #expect(h.simulator.localFirings(until: Fixture.start + limit * Fixture.minute, limit: Int(limit) + 1) == Int(limit), "up to the limit is allowed")
        try h.advance(2 * Fixture.hour)
        #expect(Self.firings(h, "stretch").count == 120)
    }

    @Test("A repeating time interval under 60 seconds is refused, as UNTimeIntervalNotificationTrigger")
    func shortRepeatRefused() throws {
        let h = try SimulatorHarness(.testApp())
        #expect(throws: SimulatorError.self) { try h.schedule(.alert("fast", .timeInterval(seconds: 10, repeats: true))) }
        #expect(try h.pending().isEmpty)
    }

    @Test("Fire date: fires at that date")
    func fireDate() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        let date = Fixture.start + 2 * Fixture.hour + 15 * Fixture.minute
        try h.schedule(.alert("meeting", .date(date, repeatInterval: nil)))
        try h.advance(3 * Fixture.hour)
        #expect(Self.firings(h, "meeting") == [date])
        #expect(try h.pending().isEmpty)
    }

    @Test("Fire date with a repeat interval", arguments: [
        (LocalTrigger.RepeatInterval.day, [0, 1, 2].map { Int64($0) * Fixture.day }),
        (.week, [0, 7, 14].map { Int64($0) * Fixture.day }),
        // 2026-01-15T10:00Z, 2026-02-15T10:00Z, 2026-03-15T10:00Z
        (.month, [0, 31, 59].map { Int64($0) * Fixture.day }),
    ])
    func repeatInterval(_ interval: LocalTrigger.RepeatInterval, _ offsets: [Int64]) throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        let first = Fixture.start + 14 * Fixture.day + 10 * Fixture.hour
        try h.schedule(.alert("water", .date(first, repeatInterval: interval)))
        try h.advance(first + offsets.last! - Fixture.start)
        #expect(Self.firings(h, "water") == offsets.map { first + $0 })
        #expect(try h.pending().map(\.identifier) == ["water"])
    }

    /// Every Monday 08:00 in the device's time zone. 2026-01-01 is a Thursday, so the first
    /// Monday is 2026-01-05.
    @Test("Calendar: every Monday 08:00 in the device's UTC offset", arguments: [
        (0, Fixture.start + 4 * Fixture.day + 8 * Fixture.hour),  // 2026-01-05T08:00Z
        (8 * 3600, Fixture.start + 4 * Fixture.day),  // 2026-01-05T08:00+08:00 = 00:00Z
        (-5 * 3600, Fixture.start + 4 * Fixture.day + 13 * Fixture.hour),  // 2026-01-05T08:00-05:00
    ])
    func everyMonday(_ utcOffsetSeconds: Int, _ firstMonday: EpochMilliseconds) throws {
        let h = try SimulatorHarness(.testApp(state: .background)) { $0.utcOffsetSeconds = utcOffsetSeconds }
        try h.schedule(.alert("standup", .calendar(CalendarMatch(weekday: 2, hour: 8, minute: 0), repeats: true)))
        #expect(try h.pending().first?.nextFireTime == firstMonday)
        try h.advance(firstMonday + 7 * Fixture.day - Fixture.start)
        #expect(Self.firings(h, "standup") == [firstMonday, firstMonday + 7 * Fixture.day])
        for time in Self.firings(h, "standup") {
            let local = CivilTime.fields(time, utcOffsetSeconds: utcOffsetSeconds)
            #expect(local.weekday == 2 && local.hour == 8 && local.minute == 0 && local.second == 0)
        }
        #expect(try h.pending().first?.nextFireTime == firstMonday + 14 * Fixture.day)
    }

    @Test("Calendar, not repeating: fires once and leaves the list")
    func calendarOnce() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("newyear", .calendar(CalendarMatch(month: 1, day: 2, hour: 9), repeats: false)))
        try h.advance(3 * Fixture.day)
        #expect(Self.firings(h, "newyear") == [Fixture.start + Fixture.day + 9 * Fixture.hour])
        #expect(try h.pending().isEmpty)
    }

    @Test("Region, on entry, once: fires on entering, then never again")
    func regionEnterOnce() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("home", .region(identifier: "ab", onEntry: true, onExit: false, repeats: false)))
        #expect(try h.pending().first?.nextFireTime == nil, "a region trigger has no time")
        try h.advance(Fixture.day)
        #expect(Self.firings(h, "home").isEmpty, "time alone does not fire it")
        try h.simulator.regionEvent("ab", entered: false, on: h.deviceID)
        #expect(Self.firings(h, "home").isEmpty, "leaving does not fire an entry trigger")
        try h.simulator.regionEvent("ab", entered: true, on: h.deviceID)
        #expect(Self.firings(h, "home") == [h.now])
        #expect(try h.pending().isEmpty)
        try h.simulator.regionEvent("ab", entered: true, on: h.deviceID)
        #expect(Self.firings(h, "home").count == 1)
    }

    @Test("Region, on exit, repeating: fires on every exit and stays listed")
    func regionExitRepeats() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("left", .region(identifier: "office", onEntry: false, onExit: true, repeats: true)))
        try h.simulator.regionEvent("office", entered: true, on: h.deviceID)
        try h.simulator.regionEvent("office", entered: false, on: h.deviceID)
        try h.advance(Fixture.hour)
        try h.simulator.regionEvent("office", entered: false, on: h.deviceID)
        try h.simulator.regionEvent("elsewhere", entered: false, on: h.deviceID)
        #expect(Self.firings(h, "left") == [Fixture.start, Fixture.start + Fixture.hour])
        #expect(try h.pending().map(\.identifier) == ["left"])
    }
}
