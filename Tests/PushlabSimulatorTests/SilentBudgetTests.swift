@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 2.3's budget: "no more than two or three per hour" by default; over budget the device
/// holds only the newest background push and delivers it when budget returns; low power mode
/// holds them all.
@Suite("2.3 Silent push budget and low power mode")
struct SilentBudgetTests {
    private static func fetchCallbacks(_ observations: [Observation]) -> [SeenCallback] {
        observations.callbacks.filter { $0.callback == .didReceiveRemoteNotificationFetch }
    }

    @Test("The default is three per hour; the fourth is held and delivered exactly when budget returns")
    func defaultThreePerHour() throws {
        #expect(SimulatorSettings().backgroundPushesPerHour == 3)
        let h = try SimulatorHarness(.testApp(state: .background))
        var ids: [String] = []
        for index in 0..<4 {
            if index > 0 { try h.advance(10 * Fixture.minute) }
            ids.append(try h.silent())
        }
        let delivered = Self.fetchCallbacks(h.all)
        #expect(delivered.map(\.notificationID) == Array(ids.prefix(3)))
        let fourth = h.all.about(ids[3])
        #expect(fourth.throttles.map(\.reason) == [.budgetExhausted])
        #expect(fourth.throttles.first?.until == Fixture.start + Fixture.hour)

        // One millisecond before the first delivery leaves the hour's window: still held.
        try h.advance(Fixture.start + Fixture.hour - 1 - h.now)
        #expect(Self.fetchCallbacks(h.all).count == 3)
        try h.advance(1)
        let released = try #require(Self.fetchCallbacks(h.all).last)
        #expect(released.notificationID == ids[3])
        #expect(released.time == Fixture.start + Fixture.hour)
        #expect(released.appState == .background)
    }

    @Test("Only the newest held push is kept: the older one is discarded as replaced")
    func holdNewest() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        for _ in 0..<3 { try h.silent() }
        let older = try h.silent()
        try h.advance(5 * Fixture.minute)
        let newer = try h.silent()
        let discards = h.all.about(older).discards
        #expect(discards.count == 1)
        #expect(discards.first?.reason == .replaced)
        #expect(discards.first?.replacedBy == newer)

        try h.advance(2 * Fixture.hour)
        let delivered = Self.fetchCallbacks(h.all).map(\.notificationID)
        #expect(delivered.count == 4)
        #expect(delivered.last == newer)
        #expect(!delivered.contains(older))
        #expect(Self.fetchCallbacks(h.all).last?.time == Fixture.start + Fixture.hour)
    }

    @Test("A simulated day, one background push every seven minutes: never more than three in any hour, the newest held one delivered exactly when budget returns")
    func simulatedDay() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        var ids: [String] = []
        for index in 0..<(24 * 60 / 7) {
            if index > 0 { try h.advance(7 * Fixture.minute) }
            ids.append(try h.silent())
        }
        try h.advance(Fixture.day)
        let all = h.all
        let deliveries = Self.fetchCallbacks(all)
        #expect(deliveries.count >= 3)
        // Any four consecutive deliveries span at least an hour.
        let times = deliveries.map(\.time)
        for index in times.indices.dropLast(3) {
            #expect(times[index + 3] - times[index] >= Fixture.hour, "four deliveries within an hour at \(times[index])")
        }
        // The first hour: exactly the first three.
        #expect(deliveries.prefix(3).map(\.notificationID) == Array(ids.prefix(3)))

        // Every push is delivered once, or discarded as replaced by a newer one; a held push that
        // is delivered arrives exactly when its throttle said budget returns.
        var unaccounted: [String] = []
        var late: [String] = []
        var replacedByOlder: [String] = []
        for (index, id) in ids.enumerated() {
            let about = all.about(id)
            let fetches = Self.fetchCallbacks(about)
            let replaced = about.discards.filter { $0.reason == .replaced }
            if fetches.count + replaced.count != 1 { unaccounted.append("\(id): delivered \(fetches.count)x, replaced \(replaced.count)x") }
            if let fetch = fetches.first, let until = about.throttles.last?.until, fetch.time != until {
                late.append("\(id) at +\((fetch.time - Fixture.start) / 1000)s, budget returned at +\((until - Fixture.start) / 1000)s")
            }
            if let by = replaced.first?.replacedBy, (ids.firstIndex(of: by) ?? -1) <= index { replacedByOlder.append(id) }
        }
        let allAccounted = unaccounted.isEmpty, allOnTime = late.isEmpty, replacedOnlyByNewer = replacedByOlder.isEmpty
        #expect(allAccounted, "\(unaccounted)")
        #expect(allOnTime, "\(late.count) held pushes delivered after budget returned, first: \(late.prefix(3))")
        #expect(replacedOnlyByNewer, "\(replacedByOlder)")
        #expect(try h.app().heldBackground == nil, "a day later nothing is held")
    }

    @Test("The budget is configurable: one per hour")
    func configurableHourly() throws {
        var settings = SimulatorSettings()
        settings.backgroundPushesPerHour = 1
        let h = try SimulatorHarness(.testApp(state: .background), settings: settings)
        try h.silent()
        try h.advance(Fixture.minute)
        let second = try h.silent()
        #expect(h.all.about(second).throttles.first?.until == Fixture.start + Fixture.hour)
        try h.advance(Fixture.hour)
        #expect(Self.fetchCallbacks(h.all).last?.notificationID == second)
        #expect(Self.fetchCallbacks(h.all).last?.time == Fixture.start + Fixture.hour)
    }

    @Test("The daily power budget is configurable")
    func configurableDaily() throws {
        var settings = SimulatorSettings()
        settings.backgroundPushesPerHour = 0
        settings.backgroundPushesPerDay = 2
        let h = try SimulatorHarness(.testApp(state: .background), settings: settings)
        try h.silent()
        try h.advance(Fixture.hour)
        try h.silent()
        try h.advance(Fixture.hour)
        let third = try h.silent()
        #expect(h.all.about(third).throttles.first?.until == Fixture.start + Fixture.day)
        try h.advance(Fixture.day)
        let last = try #require(Self.fetchCallbacks(h.all).last)
        #expect(last.notificationID == third)
        #expect(last.time == Fixture.start + Fixture.day)
    }

    @Test("A held push for an app the system ended: launched into the background when budget returns")
    func heldPushLaunchesApp() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        for _ in 0..<3 { try h.silent() }
        let held = try h.silent()
        try h.change(.terminateBySystem)
        let seen = try h.during { try h.advance(Fixture.hour) }
        #expect(seen.notificationCallbacks.map(\.step) == [
            CallbackStep(.didFinishLaunching, .background), CallbackStep(.didReceiveRemoteNotificationFetch, .background),
        ])
        #expect(seen.notificationCallbacks.last?.notificationID == held)
        #expect(seen.notificationCallbacks.allSatisfy { $0.time == Fixture.start + Fixture.hour })
    }

    @Test("In the foreground the callback is called at once, whatever the budget")
    func foregroundIgnoresBudget() throws {
        let h = try SimulatorHarness(.testApp(state: .foreground))
        for _ in 0..<6 { try h.silent() }
        #expect(Self.fetchCallbacks(h.all).count == 6)
        #expect(h.all.throttles.isEmpty)
    }

    @Test("Low power mode holds background pushes; the newest is delivered when it ends")
    func lowPowerMode() throws {
        let h = try SimulatorHarness(.testApp(state: .background)) { $0.lowPowerMode = true }
        let older = try h.silent()
        try h.advance(Fixture.minute)
        let newer = try h.silent()
        #expect(Self.fetchCallbacks(h.all).isEmpty)
        #expect(h.all.about(older).throttles.map(\.reason) == [.lowPowerMode])
        #expect(h.all.about(older).discards.first?.reason == .replaced)
        #expect(h.all.about(older).discards.first?.replacedBy == newer)

        // Budget alone would have allowed them: hours later they are still held.
        try h.advance(3 * Fixture.hour)
        #expect(Self.fetchCallbacks(h.all).isEmpty)

        let seen = try h.during { try h.simulator.updateDevice(h.deviceID, lowPowerMode: false) }
        let fetches = Self.fetchCallbacks(seen)
        #expect(fetches.map(\.notificationID) == [newer])
        #expect(fetches.first?.time == h.now)
    }

    /// Section 5: "5 and 1 may be delayed and grouped (low power)". The simulator delays them
    /// until low power mode ends; priority 10 alerts are not delayed.
    @Test("Low power mode delays priority-5 alerts, not priority-10 ones")
    func lowPowerDelaysLowPriorityAlerts() throws {
        let h = try SimulatorHarness(.testApp(state: .background)) { $0.lowPowerMode = true }
        let urgent = try h.push(Fixture.alertPayload, priority: 10)
        let relaxed = try h.push(Fixture.alertPayload, priority: 5)
        #expect(try h.notificationCenterIDs() == [urgent])
        #expect(h.all.about(relaxed).throttles.map(\.reason) == [.lowPowerMode])
        try h.simulator.updateDevice(h.deviceID, lowPowerMode: false)
        #expect(try h.notificationCenterIDs() == [urgent, relaxed])
    }
}
