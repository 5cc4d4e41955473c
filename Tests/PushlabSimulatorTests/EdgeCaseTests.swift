@testable import PushlabSimulator
import PushlabCore
import Testing

/// Rules the reference leaves to Apple's documented behaviour, chosen in docs/SIMULATOR.md.
@Suite("Edge cases the reference leaves to iOS")
struct EdgeCaseTests {
    @Test("A monthly repeat from the 31st: the last day of shorter months, back to the 31st after")
    func monthlyRepeatDoesNotDrift() {
        // 2026-01-31T09:00:00Z
        let anchor = CivilTime.time(year: 2026, month: 1, day: 31, hour: 9, minute: 0, second: 0, utcOffsetSeconds: 0)
        var fire = anchor
        var days: [Int] = []
        for _ in 0..<3 {
            fire = CivilTime.nextRepeat(.month, of: anchor, after: fire, utcOffsetSeconds: 0)
            days.append(CivilTime.fields(fire, utcOffsetSeconds: 0).day)
        }
        #expect(days == [28, 31, 30], "February 28, March 31, April 30")
    }

    @Test("A repeating local notification replaces its own Notification Center entry")
    func repeatingLocalReplacesItsEntry() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("stretch", .timeInterval(seconds: 60, repeats: true)))
        try h.advance(3 * Fixture.minute)
        #expect(try h.notificationCenterIDs() == ["stretch"])
        #expect(h.all.notificationCenterChanges.filter { $0.change == .removed }.map(\.reason) == [.collapsed, .collapsed])
    }

    @Test("Uninstalling empties Notification Center, each entry observed as removed")
    func uninstallRemovesEntries() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        let first = try h.alert()
        let second = try h.alert()
        try h.simulator.uninstall(Fixture.bundleID, from: Fixture.deviceID)
        let removed = h.all.notificationCenterChanges.filter { $0.change == .removed }
        #expect(removed.map(\.id) == [first, second])
        #expect(removed.allSatisfy { $0.reason == .appUninstalled })
    }

    @Test("Opening the app from its icon releases a background push held over budget")
    func tapIconReleasesHeldPush() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        for _ in 0..<3 { _ = try h.silent() }
        let held = try h.silent()
        #expect(h.all.about(held).throttles.map(\.reason) == [.budgetExhausted])
        try h.tapIcon()
        let calls = h.all.about(held).callbacks.map(\.callback)
        #expect(calls == [.didReceiveRemoteNotificationFetch], "delivered once the app is on screen")
    }

    @Test("Device ids the simulator makes up never collide with ones already taken")
    func generatedIDsSkipTakenOnes() throws {
        let simulator = DeviceSimulator(world: APNsWorld(), clock: ManualClock())
        try simulator.addDevice(SimulatedDevice(id: "device-1"))
        let made = try simulator.addDevice(SimulatedDevice(id: ""))
        #expect(made.id == "device-2")
        #expect(made.name == "device-2")
    }

    @Test("Two apps given the same token in one bulk load: refused")
    func duplicateTokensRefused() throws {
        let simulator = DeviceSimulator(world: APNsWorld(), clock: ManualClock())
        let token = String(repeating: "ab", count: 32)
        let error = #expect(throws: SimulatorError.self) {
            try simulator.addDevices([
                SimulatedDevice(id: "a", apps: [AppInstall(bundleID: "x", deviceToken: token)]),
                SimulatedDevice(id: "b", apps: [AppInstall(bundleID: "x", deviceToken: token)]),
            ])
        }
        #expect(error?.kind == .conflict)
        #expect(simulator.deviceCount == 0)
    }
}
