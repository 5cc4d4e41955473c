@testable import PushlabSimulator
import PushlabCore
import Testing

/// Reference 6: listing, cancelling, presenting at once, and the permission check.
@Suite("6 Local notification scheduling")
struct LocalSchedulingTests {
    static let consolePrefix = "Attempting to schedule a local notification"
    static let consoleSuffix = "with an alert but haven't received permission from the user to display alerts"

    @Test("scheduledLocalNotifications lists those not yet fired")
    func listsPending() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("soon", .timeInterval(seconds: 60, repeats: false)))
        try h.schedule(.alert("later", .timeInterval(seconds: 3600, repeats: false)))
        #expect(try h.pending().map(\.identifier) == ["soon", "later"])
        try h.advance(2 * Fixture.minute)
        #expect(try h.pending().map(\.identifier) == ["later"])
    }

    @Test("Cancel by identifier: it never fires; an unknown identifier is an error")
    func cancel() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("soon", .timeInterval(seconds: 60, repeats: false)))
        try h.schedule(.alert("keep", .timeInterval(seconds: 60, repeats: false)))
        try h.simulator.cancelLocal("soon", app: Fixture.bundleID, on: h.deviceID)
        #expect(try h.pending().map(\.identifier) == ["keep"])
        try h.advance(Fixture.hour)
        #expect(h.all.about("soon").isEmpty)
        #expect(h.all.about("keep").delivered.count == 1)
        let error = #expect(throws: SimulatorError.self) { try h.simulator.cancelLocal("soon", app: Fixture.bundleID, on: h.deviceID) }
        #expect(error?.kind == .notFound)
    }

    @Test("What fell due before a call that fails is still observed")
    func dueBeforeAFailedCall() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("soon", .timeInterval(seconds: 60, repeats: false)))
        // The clock moves on with nothing run; the next call on the device runs what is due first.
        h.clock.advance(milliseconds: 2 * Fixture.minute)
        #expect(throws: SimulatorError.self) { try h.simulator.cancelLocal("missing", app: Fixture.bundleID, on: h.deviceID) }
        #expect(try h.pending().isEmpty, "it fired")
        #expect(h.all.about("soon").delivered.count == 1, "and its observations were published")
    }

    @Test("Present one at once: shown now, without waiting for its trigger, and not listed")
    func presentNow() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        let notification = LocalNotification.alert("now", .timeInterval(seconds: 3600, repeats: false))
        var result: DeviceSimulator.ScheduleResult?
        let seen = try h.during { result = try h.simulator.presentLocalNow(notification, app: Fixture.bundleID, on: h.deviceID) }
        #expect(result == .scheduled(notification))
        #expect(seen.about("now").delivered.map(\.time) == [Fixture.start])
        #expect(seen.banners.count == 1)
        #expect(seen.badges == [3])
        #expect(try h.notificationCenterIDs() == ["now"])
        #expect(try h.pending().isEmpty)
    }

    @Test("Present at once to a legacy app in the foreground: application:didReceiveLocalNotification:")
    func presentNowForeground() throws {
        let h = try SimulatorHarness(.testApp(api: .legacy, state: .foreground))
        let seen = try h.during {
            try h.simulator.presentLocalNow(.alert("now", .timeInterval(seconds: 1, repeats: false)), app: Fixture.bundleID, on: h.deviceID)
        }
        #expect(seen.notificationCallbacks.map(\.step) == [CallbackStep(.didReceiveLocalNotification, .foreground)])
        #expect(seen.banners.isEmpty)
    }

    @Test("Without permission an alert is refused with iOS's console message", arguments: [
        NotificationAuthorization.denied, NotificationAuthorization(status: .notDetermined),
    ])
    func refusedWithoutPermission(_ authorization: NotificationAuthorization) throws {
        let h = try SimulatorHarness(.testApp(state: .background, authorization: authorization))
        let result = try h.schedule(.alert("dinner", .timeInterval(seconds: 3, repeats: false)))
        guard case .refused(let message) = result else {
            Issue.record("scheduled without permission: \(result)")
            return
        }
        #expect(message.hasPrefix(Self.consolePrefix))
        #expect(message.hasSuffix(Self.consoleSuffix))
        #expect(try h.pending().isEmpty)
        try h.advance(Fixture.minute)
        #expect(h.all.about("dinner").delivered.isEmpty)

        let now = try h.simulator.presentLocalNow(.alert("dinner", .timeInterval(seconds: 3, repeats: false)), app: Fixture.bundleID, on: h.deviceID)
        #expect(now != .scheduled(.alert("dinner", .timeInterval(seconds: 3, repeats: false))), "presenting at once is refused too")
        #expect(h.all.banners.isEmpty)
    }

    @Test("Without permission, a notification without an alert (badge only) may still be scheduled")
    func badgeOnlyNeedsNoAlertPermission() throws {
        let h = try SimulatorHarness(.testApp(state: .background, authorization: .denied))
        let badgeOnly = LocalNotification(identifier: "count", content: NotificationContent(badge: 2), trigger: .timeInterval(seconds: 5, repeats: false))
        let result = try h.schedule(badgeOnly)
        guard case .scheduled = result else {
            Issue.record("refused: \(result)")
            return
        }
        #expect(try h.pending().map(\.identifier) == ["count"])
    }

    @Test("Scheduling again with the same identifier replaces the pending one")
    func sameIdentifierReplaces() throws {
        let h = try SimulatorHarness(.testApp(state: .background))
        try h.schedule(.alert("alarm", .timeInterval(seconds: 60, repeats: false)))
        try h.schedule(.alert("alarm", .timeInterval(seconds: 600, repeats: false)))
        #expect(try h.pending().map(\.nextFireTime) == [Fixture.start + 10 * Fixture.minute])
        try h.advance(Fixture.hour)
        #expect(h.all.about("alarm").delivered.map(\.time) == [Fixture.start + 10 * Fixture.minute])
    }
}
