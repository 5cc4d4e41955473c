import PushlabCore
@testable import PushlabSimulator
import Synchronization
import Testing

/// A cluster node's phones (`DeviceSimulator+SharedPhones`): every phone's tokens in its world,
/// only its share of the phones made, and the rest made when it gains them.
@Suite struct SharedPhonesTests {
    static let phones = ScenarioPhones(
        listed: [
            SimulatedDevice(id: "listed-a", apps: [AppInstall(bundleID: "com.a", deviceToken: "", state: .foreground)]),
            SimulatedDevice(id: "listed-b", apps: [AppInstall(bundleID: "com.a", deviceToken: "")]),
        ],
        generated: [GeneratedPhones(idPrefix: "gen", tokenPrefix: "be", count: 40, app: AppInstall(bundleID: "com.a", deviceToken: ""))]
    )

    /// A node simulating the phones `here` accepts, with the scenario's phones installed.
    static func node(here: @escaping @Sendable (String) -> Bool) throws -> DeviceSimulator {
        let simulator = DeviceSimulator(world: APNsWorld(), clock: ManualClock(Fixture.start), tokenSeed: 9)
        simulator.setSimulatedHere(here)
        try simulator.replaceAll(sharing: phones)
        return simulator
    }

    static let even: @Sendable (String) -> Bool = { FNV1a($0).state % 2 == 0 }

    @Test func aNodeMakesItsShareAndKnowsEveryToken() throws {
        let mine = try Self.node(here: Self.even)
        let theirs = try Self.node(here: { !Self.even($0) })
        let all = Self.phones.all().map(\.id)
        #expect(mine.devices.map(\.id) == all.filter(Self.even).sorted())
        #expect(theirs.devices.map(\.id) == all.filter { !Self.even($0) }.sorted())
        #expect(mine.scenarioPhoneCount == 42 && mine.world.tokenCount == 42 && theirs.world.tokenCount == 42)
        // A listed phone's token was made at the install: the same on both nodes.
        for id in ["listed-a", "listed-b"] {
            let token = try #require((mine.device(id) ?? theirs.device(id))?.apps.first?.deviceToken)
            #expect(mine.world.token(token)?.deviceID == id && theirs.world.token(token)?.deviceID == id)
        }
        #expect(mine.world.token(GeneratedPhones.token(prefix: Array("be".utf8), number: 39))?.deviceID == "gen-39")
        #expect(mine.takeChanges().changed.isEmpty, "any node can make them again: nothing to write")
    }

    @Test func gainingMakesThePhonesWithWhatTheLastNodeWroteAndLosingLetsThemGo() throws {
        let simulator = try Self.node(here: { _ in false })
        #expect(simulator.deviceCount == 0)
        var saved = try #require(Self.phones.generated[0].device(3) as SimulatedDevice?)
        saved.online = false
        let made = simulator.adopt(where: { $0.hasPrefix("gen-") || $0 == "listed-a" }, saved: [saved], removed: ["gen-4"])
        #expect(made == 40, "39 generated (one removed) and one listed")
        #expect(simulator.device("gen-3")?.online == false, "as its last node wrote it")
        #expect(simulator.device("gen-4") == nil && simulator.device("listed-b") == nil)
        #expect(simulator.device("listed-a")?.apps.first?.tokenAnnounced == true, "launched at the install, as on its first node")
        #expect(simulator.takeChanges().changed.isEmpty)
        let tokens = simulator.world.tokenCount
        #expect(simulator.release { $0.hasPrefix("gen-") } == 39)
        #expect(simulator.deviceCount == 1 && simulator.world.tokenCount == tokens, "the world keeps every token")
    }

    @Test func whatAPhoneDoesToItsTokensIsToldToTheOtherNodes() throws {
        let simulator = try Self.node(here: { _ in true })
        let heard = Mutex<[DeviceSimulator.TokenChange]>([])
        simulator.setTokenListener { changes in heard.withLock { $0 += changes } }
        let device = try simulator.addDevice(SimulatedDevice(id: "new", apps: [AppInstall(bundleID: "com.a", deviceToken: "")]))
        let token = try #require(device.apps.first?.deviceToken)
        try simulator.uninstall("com.a", from: "new")
        let installed = try simulator.install(AppInstall(bundleID: "com.b", deviceToken: ""), on: "new")
        try simulator.removeDevice("new")
        let now = simulator.clock.now()
        let changes = heard.withLock { $0 }
        func registered(_ change: DeviceSimulator.TokenChange) -> (token: String, device: String?)? {
            guard case .register(let record) = change else { return nil }
            return (record.token, record.deviceID)
        }
        try #require(changes.count == 4)
        #expect(registered(changes[0])?.token == token && registered(changes[0])?.device == "new")
        #expect(changes[1] == .unregister(token: token, at: now))
        #expect(registered(changes[2])?.token == installed.deviceToken && registered(changes[2])?.device == "new")
        #expect(changes[3] == .unregister(token: installed.deviceToken, at: now))
    }

    @Test func aNodesOwnTokensAreNotTheScenariosNorAnotherNodes() throws {
        let first = try Self.node(here: { _ in true })
        let second = try Self.node(here: { _ in true })
        let a = try first.addDevice(SimulatedDevice(id: "x", apps: [AppInstall(bundleID: "com.a", deviceToken: "")]))
        let b = try second.addDevice(SimulatedDevice(id: "y", apps: [AppInstall(bundleID: "com.a", deviceToken: "")]))
        #expect(a.apps[0].deviceToken != b.apps[0].deviceToken, "two nodes never make one token for two phones")
        for node in [first, second] {
            // As a reset does: the world first.
            node.world.replaceAll(keys: [], apps: [], tokens: [])
            try node.replaceAll(sharing: Self.phones)
        }
        #expect(first.device("listed-b")?.apps[0].deviceToken == second.device("listed-b")?.apps[0].deviceToken, "the scenario's again alike after a reset")
    }
}
