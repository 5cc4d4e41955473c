import Foundation
import PushlabControl
import PushlabCore
import PushlabDelivery
import PushlabScenario
import PushlabServices
import PushlabSimulator
import PushlabStore
import Synchronization

/// The cores one Pushlab runs on: the APNs world and rules, the clock, the device simulator and
/// the pipeline between them, the fault rules and the request log. Plain objects, connected to nothing: `PushlabRuntime`
/// puts sockets, a store and a control API around them. Made from a scenario, they also know
/// how to go back to it (reset) and to take another (load).
public final class PushlabCores: Sendable {
    public let world: APNsWorld
    public let clock: ControlledClock
    public let simulator: DeviceSimulator
    /// Where the service hands accepted pushes: at once to the simulator, until the runtime
    /// queues them (`DeliveryWorker`).
    public let delivery: DeliveryPipeline
    public let faults = FaultRules()
    /// The stand-in for the apps' backends, with the scenario's rules.
    public let standIn = StandInBackend()
    public let service: APNsProviderService
    /// JPush and GeTui, with the scenario's portal apps (docs/SERVICES.md).
    public let services: ServiceHub
    /// Where a manual clock started (a reset goes back there); nil for real time.
    public let manualStart: EpochMilliseconds?
    /// What every scenario loaded later gets on top of its own policy (serve's flags).
    private let adjust: @Sendable (inout Scenario) -> Void
    private let current: Mutex<Scenario?>
    /// A cluster node's routing of control API requests about other nodes' phones.
    private let clusterRouting = Mutex<(node: String, routing: any ClusterRouting)?>(nil)

    /// The cores of `scenario`, installed; `progress` hears how far registering its devices has come.
    /// `tokenSeed`: the phones' generated tokens follow it (a cluster's nodes agree on them).
    /// `sink`: where what the rules accept goes, nil for the delivery pipeline of one process
    /// (a cluster node's is the engine's, which has the last word on every push).
    /// `simulatedHere`: a cluster node's share of the phones, the only ones it makes
    /// (`DeviceSimulator.setSimulatedHere`).
    public convenience init(
        scenario: Scenario, manualStart: EpochMilliseconds?, progress: LoadProgress? = nil, tokenSeed: UInt64? = nil,
        sink: (any PushSink)? = nil, simulatedHere: (@Sendable (String) -> Bool)? = nil,
        adjust: @escaping @Sendable (inout Scenario) -> Void = { _ in }
    ) throws {
        let world = APNsWorld()
        let clock = ControlledClock(manualStart: manualStart)
        let simulator = DeviceSimulator(world: world, clock: clock, settings: scenario.simulatorSettings, tokenSeed: tokenSeed)
        simulator.setSimulatedHere(simulatedHere)
        // Its running apps launch now; the runtime observes those launches once it listens.
        simulator.holdCreationLaunches()
        do {
            try scenario.install(into: world, simulator: simulator, progress: progress)
        } catch {
            throw Scenario.LoadError(description: "Scenario \(scenario.source): \(error.description)")
        }
        self.init(world: world, clock: clock, simulator: simulator, policy: scenario.policy, scenario: scenario, sink: sink, adjust: adjust)
        if scenario.recordsReport { service.report?.start(at: clock.now()) }
    }

    /// Cores around a world and simulator made by hand (a test's); without a scenario there is
    /// nothing to reset to.
    public init(
        world: APNsWorld, clock: ControlledClock, simulator: DeviceSimulator, policy: APNsPolicy, requestLog: RequestLog = RequestLog(),
        scenario: Scenario? = nil, sink: (any PushSink)? = nil, adjust: @escaping @Sendable (inout Scenario) -> Void = { _ in }
    ) {
        self.world = world
        self.clock = clock
        self.simulator = simulator
        delivery = DeliveryPipeline(simulator: simulator)
        manualStart = clock.mode == .manual ? clock.now() : nil
        self.adjust = adjust
        current = Mutex(scenario)
        service = APNsProviderService(
            world: world, policy: policy, clock: clock, log: requestLog, sink: sink ?? delivery, faults: faults,
            report: ProviderReportRecorder()
        )
        standIn.replaceRules(scenario?.standInRules ?? [])
        services = ServiceHub(simulator: simulator, apps: scenario?.services ?? ServiceApps())
    }

    /// Makes these the cores of cluster node `node`: its control API forwards requests about a
    /// phone another node simulates (`routing`). Before the runtime starts.
    public func joinCluster(as node: String, routing: any ClusterRouting) {
        clusterRouting.withLock { $0 = (node, routing) }
    }

    /// Whether these are a cluster node's cores: JPush and GeTui then do not run (docs/SERVICES.md).
    public var isClusterNode: Bool { clusterRouting.withLock { $0 != nil } }

    /// The scenario the cores were made from, or the one loaded since.
    public var scenario: Scenario? { current.withLock { $0 } }

    /// The control API over these cores; `POST /v1/scenario` also reseeds `store`.
    public func controlAPI(store: PushlabStore?) -> ControlAPI {
        var reset: ControlAPI.Reset?
        var loadScenario: ControlAPI.LoadScenario?
        if scenario != nil {
            reset = { [self] in try self.reset() }
            loadScenario = { [self] path in
                let loaded = try load(path: path)
                try store?.reseed(fromScenario: loaded.fingerprint)
                return loaded.name
            }
        }
        let api = ControlAPI(
            simulator: simulator, delivery: delivery, requestLog: service.log, faults: faults, store: store, scenarioName: scenario?.name,
            reset: reset, loadScenario: loadScenario, checkScenario: { [self] path in _ = try loadable(path: path) }, signers: { [self] in self.scenario?.signers ?? [] }, standIn: standIn,
            service: service, services: isClusterNode ? nil : services
        )
        if let (node, routing) = clusterRouting.withLock({ $0 }) { api.joinCluster(as: node, routing: routing) }
        return api
    }

    /// Back to the scenario: the clock to its manual start (or real time), then the world, the
    /// devices and the policy.
    public func reset() throws {
        guard let scenario = self.scenario else { return }
        if let manualStart { clock.set(manualStart) } else { clock.setMode(.real) }
        try scenario.install(into: world, simulator: simulator)
        service.policy = scenario.policy
        if scenario.recordsReport { service.report?.start(at: clock.now()) }
        standIn.replaceRules(scenario.standInRules)
        standIn.clearRequests()
        services.reset(to: scenario.services)
    }

    /// The scenario file at `path`, as `load` would make it the current one, or why it cannot be.
    public func loadable(path: String) throws -> Scenario {
        var loaded = try Scenario.load(path: path)
        adjust(&loaded)
        guard loaded.simulatorSettings == simulator.settings else {
            throw Scenario.LoadError(description: "Scenario \(path) has other simulator settings than this server runs with; restart pushlab serve with it (or run it in-process)")
        }
        return loaded
    }

    /// Makes another scenario file the current one and resets to it. Its simulator settings must
    /// be the running simulator's: devices already made keep the rules they were made with.
    public func load(path: String) throws -> Scenario {
        let loaded = try loadable(path: path)
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
