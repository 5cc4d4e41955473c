@testable import PushlabSimulator
import Testing

/// Which sessions leave a device for the store to save again: any change but its Notification
/// Center's (whose entries the store keeps from the observations), found by the revisions the
/// model's observers move on, not by a copy.
@Suite struct DeviceChangeTests {
    /// A harness whose device has been saved: nothing is left to take.
    private func savedHarness(_ apps: [AppInstall] = [.testApp()]) throws -> SimulatorHarness {
        let harness = try SimulatorHarness(apps: apps)
        _ = harness.simulator.takeChanges()
        return harness
    }

    private func changedIDs(_ harness: SimulatorHarness) -> [String] {
        harness.simulator.takeChanges().changed.map(\.id)
    }

    @Test func alertsThatOnlyAddEntriesAndRepeatTheBadgeLeaveNothingToSave() throws {
        let harness = try savedHarness()
        try harness.alert()
        #expect(changedIDs(harness) == [Fixture.deviceID], "the first alert sets the badge to 7")
        try harness.alert()
        try harness.alert()
        #expect(try harness.notificationCenterIDs().count == 3)
        #expect(changedIDs(harness).isEmpty, "the same badge again, and entries the store keeps row by row")
        try harness.alert(#"{"aps":{"alert":"Hi","badge":8}}"#)
        #expect(changedIDs(harness) == [Fixture.deviceID], "a new badge")
        try harness.dismiss()
        #expect(changedIDs(harness).isEmpty, "dismissing an entry changes only the Notification Center")
    }

    @Test func everyOtherKindOfChangeIsSaved() throws {
        let harness = try savedHarness()
        let changes: [(String, () throws -> Void)] = [
            ("a silent push (the budget's record)", { try harness.silent() }),
            ("the device locked", { _ = try harness.simulator.updateDevice(Fixture.deviceID, locked: true) }),
            ("the app to the foreground", { try harness.change(.foreground) }),
            ("a category added", { _ = try harness.simulator.updateApp(Fixture.bundleID, on: Fixture.deviceID) { $0.categories.append(NotificationCategory(identifier: "c", actions: [])) } }),
            ("authorization denied", { _ = try harness.simulator.updateApp(Fixture.bundleID, on: Fixture.deviceID) { $0.authorization = .denied } }),
            ("a reinstall", { try harness.simulator.reinstall(Fixture.bundleID, on: Fixture.deviceID) }),
            ("a second app", { _ = try harness.simulator.install(.testApp("com.example.other"), on: Fixture.deviceID) }),
            ("the second app's badge", { _ = try harness.simulator.updateApp("com.example.other", on: Fixture.deviceID) { $0.badge = 3 } }),
            ("the first app gone", { try harness.simulator.uninstall(Fixture.bundleID, from: Fixture.deviceID) }),
        ]
        for (change, make) in changes {
            try make()
            #expect(changedIDs(harness) == [Fixture.deviceID], "\(change)")
        }
    }

    @Test func anInstallPutInAnotherPlaceTakesADifferentRevision() {
        let first = AppInstall.testApp()
        let twin = AppInstall.testApp()
        #expect(first == twin, "equality is the fields', not the revisions'")
        var device = SimulatedDevice(id: "phone", apps: [first])
        let before = device.revisions
        device.apps[0] = twin
        #expect(device.revisions != before, "an install made apart never has another's revision")
        device.apps[0].notificationCenter.append(DeliveredNotification(
            identifier: "N1", isLocal: false, collapseID: nil, content: NotificationContent(title: "t", body: "b"), deliveredAt: 1, trigger: "push"
        ))
        let afterEntry = device.revisions
        device.apps[0].notificationCenter.removeAll()
        #expect(device.revisions == afterEntry, "Notification Center entries move no revision")
        device.apps[0].badge = device.apps[0].badge
        #expect(device.revisions == afterEntry, "nor does a field set to the value it had")
    }
}
