@testable import PushlabCore
@testable import PushlabSimulator
import Testing

/// An app that is running when its device (or its install) is created has launched at that
/// moment: it hears its tokens then, and its backend learns them (docs/SIMULATOR.md 4.1).
@Suite("Apps created running have launched")
struct LaunchAtCreationTests {
    /// A simulator whose observers and backend client are connected before any device exists.
    final class Bench {
        let clock = ManualClock(Fixture.start)
        let world = APNsWorld()
        let simulator: DeviceSimulator
        let log = InMemoryObservationLog()
        let backend = ProviderRequestTests.Capture()

        init(holding: Bool = false) {
            simulator = DeviceSimulator(world: world, clock: clock, tokenSeed: 11)
            if holding { simulator.holdCreationLaunches() }
            simulator.addSink(log)
            simulator.setProviderRequestSender(backend)
        }

        func steps(_ deviceID: String) -> [CallbackStep] { log.observations(device: deviceID).callbacks.map(\.step) }
    }

    static func app(_ state: AppState, services: PushServices? = nil, liveActivities: LiveActivitySupport? = nil) -> AppInstall {
        var app = AppInstall.testApp(state: state)
        app.provider = ProviderRequestTests.backend
        app.services = services
        app.liveActivities = liveActivities
        return app
    }

    @Test("In the background: launched with {}, then told its token; the backend learns it")
    func background() throws {
        let bench = Bench()
        let device = try bench.simulator.addDevice(SimulatedDevice(id: "ann", apps: [Self.app(.background)]))
        let token = device.apps[0].deviceToken
        #expect(bench.steps("ann") == [CallbackStep(.didFinishLaunching, .background), CallbackStep(.didRegisterForRemoteNotifications, .background)])
        let callbacks = bench.log.observations(device: "ann").callbacks
        #expect(callbacks[0].arguments.launchOptions == .object([]) && callbacks[1].arguments.deviceToken == token)
        #expect(bench.log.observations(device: "ann").allSatisfy { $0.time == Fixture.start && $0.kind == .callback })
        let registered = try #require(bench.backend.all.first)
        #expect(bench.backend.all.map(\.event) == [.registered])
        #expect(registered.url == "https://backend.example/api/devices/ann")
        #expect(try JSONParser.parse(try #require(registered.body))["token"] == .string(token))
        #expect(bench.simulator.device("ann")?.apps[0].tokenAnnounced == true)
        #expect(bench.world.token(token)?.deviceID == "ann", "registered with APNs before the backend hears of it")
    }

    @Test("On screen: launched, told its token, active; a later launch does not register again")
    func foreground() throws {
        let bench = Bench()
        try bench.simulator.addDevice(SimulatedDevice(id: "ben", apps: [Self.app(.foreground)]))
        #expect(bench.steps("ben") == [
            CallbackStep(.didFinishLaunching, .foreground), CallbackStep(.didRegisterForRemoteNotifications, .foreground),
            CallbackStep(.didBecomeActive, .foreground),
        ])
        try bench.simulator.changeApp(Fixture.bundleID, on: "ben", to: .terminateBySystem)
        try bench.simulator.changeApp(Fixture.bundleID, on: "ben", to: .foreground)
        #expect(bench.steps("ben").filter { $0.callback == .didRegisterForRemoteNotifications }.count == 1)
        #expect(bench.backend.all.map(\.event) == [.registered])
    }

    @Test("Not running: nothing at creation; the first launch tells it its token")
    func notRunning() throws {
        let bench = Bench()
        try bench.simulator.addDevice(SimulatedDevice(id: "cat", apps: [Self.app(.notRunning)]))
        #expect(bench.log.observations(device: "cat").isEmpty && bench.backend.all.isEmpty)
        try bench.simulator.changeApp(Fixture.bundleID, on: "cat", to: .background)
        #expect(bench.steps("cat") == [CallbackStep(.didFinishLaunching, .background), CallbackStep(.didRegisterForRemoteNotifications, .background)])
        #expect(bench.backend.all.map(\.event) == [.registered])
    }

    @Test("Every kind of token a launch hands over is handed over at creation")
    func everyTokenKind() throws {
        let bench = Bench()
        let services = PushServices(
            voip: VoIPService(), location: LocationPushService(), pushToTalk: PushToTalkService(), widgets: WidgetPushService(),
            controls: TokenService()
        )
        let device = try bench.simulator.addDevice(SimulatedDevice(id: "dan", iosVersion: "18.0", apps: [
            Self.app(.background, services: services, liveActivities: LiveActivitySupport()),
        ]))
        let app = device.apps[0]
        let told = Dictionary(bench.log.observations(device: "dan").callbacks.map { ($0.callback, $0.arguments.deviceToken) }) { first, _ in first }
        let tokens = try #require(app.services?.tokens)
        let expected: [(AppCallback, String?)] = [
            (.didRegisterForRemoteNotifications, app.deviceToken),
            (.pushRegistryDidUpdateCredentials, tokens.first { $0.kind == .voip }?.token),
            (.locationPushToken, tokens.first { $0.kind == .location }?.token),
            (.pushToTalkEphemeralToken, tokens.first { $0.kind == .pushToTalk }?.token),
            (.widgetPushTokenDidChange, tokens.first { $0.kind == .widgets }?.token),
            (.controlPushTokensDidChange, tokens.first { $0.kind == .controls }?.token),
            (.pushToStartTokenUpdates, app.liveActivities?.pushToStartToken),
        ]
        for (callback, token) in expected {
            #expect(token != nil && told[callback] == token, "\(callback.rawValue)")
        }
        #expect(bench.simulator.device("dan")?.apps[0].liveActivities?.pushToStartTokenAnnounced == true)
    }

    @Test("An app installed running launches once its tokens are registered")
    func install() throws {
        let bench = Bench()
        try bench.simulator.addDevice(SimulatedDevice(id: "eve", apps: []))
        let installed = try bench.simulator.install(Self.app(.background), on: "eve")
        #expect(installed.tokenAnnounced)
        #expect(bench.steps("eve") == [CallbackStep(.didFinishLaunching, .background), CallbackStep(.didRegisterForRemoteNotifications, .background)])
        #expect(bench.backend.all.map(\.event) == [.registered])
        try bench.simulator.install(Self.app(.notRunning).renamed("com.example.other"), on: "eve")
        #expect(bench.steps("eve").count == 2, "an app installed not running waits for its first launch")
    }

    @Test("Devices added in bulk launch alike; a bulk add that fails observes nothing")
    func bulk() throws {
        let bench = Bench()
        try bench.simulator.addDevices([
            SimulatedDevice(id: "f1", apps: [Self.app(.background)]), SimulatedDevice(id: "f2", apps: [Self.app(.notRunning)]),
        ])
        #expect(bench.steps("f1").count == 2 && bench.steps("f2").isEmpty)
        let sequences = bench.log.observations().map(\.sequence)
        #expect(sequences == [1, 2])
        #expect(throws: SimulatorError.self) {
            try bench.simulator.addDevices([SimulatedDevice(id: "g1", apps: [Self.app(.background)]), SimulatedDevice(id: "f1", apps: [])])
        }
        #expect(bench.log.observations(device: "g1").isEmpty && bench.simulator.device("g1") == nil)
        try bench.simulator.addDevice(SimulatedDevice(id: "g2", apps: [Self.app(.background)]))
        #expect(bench.log.observations(device: "g2").map(\.sequence) == [3, 4], "no number was spent on the failed add")
    }

    @Test("Held launches wait for the runtime, and a reloaded store's devices forget theirs")
    func held() throws {
        let bench = Bench(holding: true)
        try bench.simulator.addDevice(SimulatedDevice(id: "hal", apps: [Self.app(.background)]))
        #expect(bench.log.observations().isEmpty && bench.backend.all.isEmpty)
        #expect(bench.simulator.device("hal")?.apps[0].tokenAnnounced == true)
        bench.simulator.releaseCreationLaunches(observe: true)
        #expect(bench.steps("hal").count == 2 && bench.backend.all.map(\.event) == [.registered])
        try bench.simulator.addDevice(SimulatedDevice(id: "ida", apps: [Self.app(.background)]))
        #expect(bench.steps("ida").count == 2, "released: later devices are observed at once")

        let restarted = Bench(holding: true)
        try restarted.simulator.addDevice(SimulatedDevice(id: "hal", apps: [Self.app(.background)]))
        restarted.simulator.releaseCreationLaunches(observe: false)
        restarted.simulator.releaseCreationLaunches(observe: true)
        #expect(restarted.log.observations().isEmpty && restarted.backend.all.isEmpty)
    }
}

private extension AppInstall {
    func renamed(_ bundleID: String) -> AppInstall {
        var copy = self
        copy.bundleID = bundleID
        return copy
    }
}
