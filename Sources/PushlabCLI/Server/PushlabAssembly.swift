import Foundation
import PushlabControl
import PushlabCore
import PushlabScenario
import PushlabSimulator
import PushlabStore
import Synchronization

/// The cores one server runs on, put together from a scenario: the APNs world and rules, the
/// clock, the device simulator and the fault rules. `pushlab serve` and `pushlab run` both start
/// from it; it also knows how to go back to its scenario (reset) and to take another (load).
final class PushlabAssembly: Sendable {
    let world = APNsWorld()
    let clock: ControlledClock
    let simulator: DeviceSimulator
    let faults = FaultRules()
    let service: APNsProviderService
    /// Where a manual clock started (a reset goes back there); nil for real time.
    let manualStart: EpochMilliseconds?
    /// What every scenario loaded later gets on top of its own policy (serve's flags).
    private let adjust: @Sendable (inout Scenario) -> Void
    private let current: Mutex<Scenario>

    init(scenario: Scenario, manualStart: EpochMilliseconds?, adjust: @escaping @Sendable (inout Scenario) -> Void = { _ in }) throws {
        clock = ControlledClock(manualStart: manualStart)
        self.manualStart = manualStart
        self.adjust = adjust
        current = Mutex(scenario)
        simulator = DeviceSimulator(world: world, clock: clock, settings: scenario.simulatorSettings)
        do {
            try scenario.install(into: world, simulator: simulator)
        } catch {
            throw Scenario.LoadError(description: "Scenario \(scenario.source): \(error.description)")
        }
        service = APNsProviderService(world: world, policy: scenario.policy, clock: clock, sink: simulator, faults: faults)
    }

    var scenario: Scenario { current.withLock { $0 } }

    /// The control API over these cores; `POST /v1/scenario` also reseeds `store`.
    func controlAPI(store: PushlabStore?) -> ControlAPI {
        ControlAPI(
            simulator: simulator, requestLog: service.log, faults: faults, store: store, scenarioName: scenario.name,
            reset: { [self] in try reset() },
            loadScenario: { [self] path in
                let loaded = try load(path: path)
                try store?.reseed(fromScenario: loaded.fingerprint)
                return loaded.name
            }
        )
    }

    /// Back to the scenario: the clock to its manual start (or real time), then the world, the
    /// devices and the policy.
    func reset() throws {
        let scenario = self.scenario
        if let manualStart { clock.set(manualStart) } else { clock.setMode(.real) }
        try scenario.install(into: world, simulator: simulator)
        service.policy = scenario.policy
    }

    /// Makes another scenario file the current one and resets to it. Its simulator settings must
    /// be the running simulator's: devices already made keep the rules they were made with.
    func load(path: String) throws -> Scenario {
        var loaded = try Scenario.load(path: path)
        adjust(&loaded)
        guard loaded.simulatorSettings == simulator.settings else {
            throw Scenario.LoadError(description: "Scenario \(path) has other simulator settings than this server runs with; restart pushlab serve with it (or run it in-process)")
        }
        let previous = current.withLock { scenario in
            defer { scenario = loaded }
            return scenario
        }
        do {
            try reset()
        } catch {
            current.withLock { $0 = previous }
            try reset()
            throw error
        }
        return loaded
    }
}
