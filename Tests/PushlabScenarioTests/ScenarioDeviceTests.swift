import Foundation
import PushlabCore
import PushlabScenario
import PushlabSimulator
import Synchronization
import Testing

@Suite("Scenario files: simulated devices")
struct ScenarioDeviceTests {
    private let source = "/tmp/devices.yaml"
    private func parse(_ yaml: String) throws -> Scenario { try ScenarioParsing.parse(yaml, source: source) }
    private func error(_ yaml: String) -> String { ScenarioParsing.error(yaml, source: source) }

    private let token = String(repeating: "c1", count: 32)

    @Test func everyDeviceAndAppFieldIsRead() throws {
        let scenario = try parse("""
            devices:
              - id: phone
                name: Test phone
                iosVersion: "9.3"
                online: false
                locked: true
                lowPowerMode: true
                focus: true
                utcOffsetSeconds: 3600
                apps:
                  - bundleId: com.a
                    environment: production
                    deviceToken: \(token)
                    api: legacy
                    implements: ["application:didReceiveRemoteNotification:", didFinishLaunching]
                    authorization: {status: authorized, sound: false}
                    backgroundModes: []
                    categories:
                      - id: MSG
                        customDismissAction: true
                        actions: [{id: REPLY, title: Reply, activation: background, destructive: true, authenticationRequired: true, textInput: true}]
                    willPresentOptions: [banner, sound]
                    serviceExtension: true
                    state: background
                    terminatedBy: user
                    badge: 4
            simulator: {backgroundPushesPerHour: 5, backgroundPushesPerDay: 0, storageSeconds: 60, notificationCenterLimit: 10}
            """)
        let device = try #require(scenario.devices.first)
        #expect((device.id, device.name, device.iosVersion) == ("phone", "Test phone", "9.3"))
        #expect((device.online, device.locked, device.lowPowerMode, device.focus) == (false, true, true, true))
        #expect(device.utcOffsetSeconds == 3600)
        let app = try #require(device.apps.first)
        #expect(app.environment == .production && app.deviceToken == token && app.api == .legacy)
        #expect(app.implements == [.didReceiveRemoteNotification, .didFinishLaunching])
        #expect(app.authorization == NotificationAuthorization(status: .authorized, alert: true, badge: true, sound: false))
        #expect(!app.remoteNotificationBackgroundMode && app.serviceExtension)
        #expect(app.categories == [NotificationCategory(identifier: "MSG", actions: [
            .init(identifier: "REPLY", title: "Reply", activation: .background, destructive: true, authenticationRequired: true, textInput: true),
        ], customDismissAction: true)])
        #expect(app.willPresentOptions == [.banner, .sound])
        #expect((app.state, app.terminatedBy, app.badge) == (.background, .user, 4))
        var expected = SimulatorSettings()
        expected.backgroundPushesPerHour = 5
        expected.backgroundPushesPerDay = 0
        expected.storageMilliseconds = 60_000
        expected.notificationCenterLimit = 10
        #expect(scenario.simulatorSettings == expected)
    }

    @Test func oneLineIsADeviceWithDefaults() throws {
        let app = try #require(try parse("devices: [{apps: [{bundleId: com.a}]}]").devices.first?.apps.first)
        #expect(app.environment == .development && app.api == .userNotifications && app.state == .notRunning)
        #expect(app.deviceToken.isEmpty, "a token is made when the device is added")
        #expect(app.implements == AppCallback.all(for: .userNotifications))
        #expect(app.remoteNotificationBackgroundMode && app.authorization == .authorized)
    }

    @Test func installingRegistersEveryAppsTokenForItsDevice() throws {
        let scenario = try parse("""
            apps: [{bundleId: com.a, teamId: T1}]
            devices:
              - {id: one, apps: [{bundleId: com.a, deviceToken: \(token)}]}
              - {id: two, apps: [{bundleId: com.a}]}
            generatedDevices: [{count: 3, bundleId: com.a, prefix: be, idPrefix: load, state: background}]
            """)
        let world = APNsWorld()
        let simulator = DeviceSimulator(world: world, clock: ManualClock())
        try scenario.install(into: world, simulator: simulator)
        #expect(simulator.deviceCount == 5)
        #expect(world.token(token)?.deviceID == "one")
        let generated = try #require(simulator.device("load-2")?.apps.first)
        #expect(generated.deviceToken == "be" + String(repeating: "0", count: 61) + "2" && generated.state == .background)
        #expect(world.token(generated.deviceToken)?.deviceID == "load-2")
        let random = try #require(simulator.device("two")?.apps.first?.deviceToken)
        #expect(random.count == 64 && world.token(random)?.deviceID == "two")
    }

    /// Listed devices launch at creation; generated ones (load-test phones) launched before the
    /// simulation began: they know their tokens, and record nothing.
    @Test func listedRunningAppsLaunchAndGeneratedOnesStartLaunched() throws {
        let scenario = try parse("""
            apps: [{bundleId: com.a, teamId: T1}]
            devices: [{id: listed, apps: [{bundleId: com.a, state: background}]}]
            generatedDevices:
              - {count: 2, bundleId: com.a, prefix: be, idPrefix: run, state: foreground}
              - {count: 1, bundleId: com.a, prefix: bf, idPrefix: idle}
            """)
        let world = APNsWorld()
        let simulator = DeviceSimulator(world: world, clock: ManualClock())
        let log = InMemoryObservationLog()
        simulator.addSink(log)
        try scenario.install(into: world, simulator: simulator)
        #expect(log.observations(device: "listed").map(\.kind) == [.callback, .callback])
        #expect(log.observations(device: "run-0").isEmpty && log.observations(device: "idle-0").isEmpty)
        #expect(simulator.device("run-1")?.apps.first?.tokenAnnounced == true)
        #expect(simulator.device("idle-0")?.apps.first?.tokenAnnounced == false, "not running: its first launch tells it")
    }

    @Test func generatingAndRegisteringDevicesReportProgressUpToTheTotal() throws {
        let seen = Mutex<[(step: LoadProgress.Step, done: Int, total: Int)]>([])
        let progress = LoadProgress { step, done, total in seen.withLock { $0.append((step, done, total)) } }
        let count = LoadProgress.stride + 7
        let scenario = try Scenario.parse(yaml: """
            devices: [{id: one, apps: [{bundleId: com.a}]}]
            generatedDevices:
              - {count: \(count - 10), bundleId: com.a, prefix: be}
              - {count: 10, bundleId: com.a, prefix: bf, idPrefix: more}
            """, source: source)
        let world = APNsWorld()
        try scenario.install(into: world, simulator: DeviceSimulator(world: world, clock: ManualClock()), progress: progress)
        let reports = seen.withLock { $0 }
        #expect(reports.filter { $0.step == .generatingDevices }.map(\.done) == [LoadProgress.stride, count], "the explicit device is not generated")
        #expect(reports.filter { $0.step == .generatingDevices }.allSatisfy { $0.total == count })
        #expect(reports.filter { $0.step == .registeringDevices }.map(\.done) == [LoadProgress.stride, count + 1])
    }

    @Test func mistakesAreNamedWithTheirPlace() {
        #expect(error("devices: [{apps: [{bundleId: com.a, stat: background}]}]").contains("devices[0].apps[0].stat"))
        #expect(error("devices: [{apps: [{bundleId: com.a, categories: [{id: C, actions: [{id: A, activaton: background}]}]}]}]")
            .contains("devices[0].apps[0].categories[0].actions[0].activaton"))
        #expect(error("devices: [{apps: [{bundleId: com.a, state: asleep}]}]").contains("devices[0].apps[0].state must be one of notRunning, background, inactive, foreground, not asleep"))
        #expect(error("devices: [{apps: [{bundleId: com.a, implements: [onPush]}]}]").contains("onPush is not a callback"))
        #expect(error("devices: [{apps: [{bundleId: com.a, deviceToken: abc}]}]").contains("devices[0].apps[0].deviceToken abc is not a device token"))
        #expect(error("devices: [{id: x}, {id: x}]").contains("device id x is used twice"))
        #expect(error("devices: [{id: g-3}]\ngeneratedDevices: [{count: 5, bundleId: com.a, idPrefix: g}]").contains("device id g-3 is used twice"))
        #expect(error("generatedDevices: [{count: 2, bundleId: com.a, idPrefix: g}, {count: 1, bundleId: com.a, idPrefix: g, prefix: ff}]").contains("device id g-0 is used twice"))
        #expect(error("devices: [{apps: [{bundleId: com.a}, {bundleId: com.a}]}]").contains("com.a is listed twice"))
        #expect(error("simulator: {notificationCenterLimit: 0}").contains("notificationCenterLimit must be at least 1"))
        #expect(error("generatedDevices: [{count: 1, bundleId: com.a, idPrefix: a/b}]").contains("idPrefix"))
        let huge = "{count: \(Int.max), bundleId: com.a}"
        #expect(error("generatedDevices: [\(huge), \(huge)]").contains("generatedDevices[0]: prefix must be under 48 hex digits and count 0...10000000"))
    }
}
