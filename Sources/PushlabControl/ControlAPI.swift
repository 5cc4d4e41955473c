import Hummingbird
import PushlabCore
import PushlabDelivery
import PushlabScenario
import PushlabSimulator
import PushlabStore
import Synchronization

/// Pushlab's control API: plain HTTP and JSON over the simulator, the APNs world, the clock,
/// the fault rules, the request log and the store. Each route only translates JSON into calls
/// and results into JSON (`Routes/`); the rules stay in the cores. `docs/CONTROL-API.md`
/// describes every route.
///
/// Making one changes nothing: `connect()` starts watching the simulator and the request log
/// (for events, metrics and, without a store, the observations it keeps) until the function it
/// returns is called.
public final class ControlAPI: Sendable {
    /// A listener of the APNs server, for `/v1/health`.
    public typealias Listener = APNsListener

    /// Puts the world, the devices, the policy and the clock back as the scenario had them
    /// (`POST /v1/reset`); the control API itself clears the fault rules and the request log.
    public typealias Reset = @Sendable () throws -> Void

    /// Makes the scenario file at a path the loaded one and resets to it (`POST /v1/scenario`);
    /// returns its name. Throws a readable error for a file that cannot be used.
    public typealias LoadScenario = @Sendable (_ path: String) throws -> String

    /// The keys `POST /v1/send` may sign provider tokens with: the loaded scenario's keys that
    /// have their private half. Asked at each send, as `POST /v1/scenario` changes them.
    public typealias Signers = @Sendable () -> [Scenario.Signer]

    let simulator: DeviceSimulator
    /// The pipeline in front of the simulator, if its pushes are queued (for the health route).
    let delivery: DeliveryPipeline?
    let requestLog: RequestLog
    let faults: FaultRules
    let store: PushlabStore?
    let history: History
    /// Without a store: where the newest observations are kept once connected.
    private let observationLog: InMemoryObservationLog?
    let events: EventHub
    /// The stand-in for the apps' backends (`pushlab:stand-in`).
    public let standIn: StandInBackend
    /// The counters behind `/metrics`; wrap the APNs service with `metrics.measuring(_:)` to
    /// time answers and count connections.
    public let metrics: ControlMetrics
    private let currentScenarioName: Mutex<String?>
    let resetWorld: Reset?
    let loadScenario: LoadScenario?
    let signers: Signers
    /// The APNs service, for its latency profile and provider report; nil in tests of the
    /// control API alone.
    let service: APNsProviderService?
    /// JPush and GeTui (`/v1/services/…`); nil runs none.
    public let services: ServiceHub?
    private let listeners = Mutex<[Listener]>([])
    /// A cluster node's routing of requests about phones other nodes simulate, and its applier
    /// of the cluster's changes to the world.
    private let cluster = Mutex<(node: String, routing: any ClusterRouting, applier: ClusterChangeApplier)?>(nil)
    /// Whether a scenario file could be loaded (a cluster checks before every node loads it).
    let checkScenario: CheckScenario?

    /// Throws the readable error `POST /v1/scenario` would answer for a file it cannot load.
    public typealias CheckScenario = @Sendable (_ path: String) throws -> Void

    /// - Parameters:
    ///   - store: where observations and requests are read from; without one the control API
    ///     keeps the newest 100,000 observations in memory and reads requests from the log.
    ///   - reset: what `POST /v1/reset` runs; without one that route answers 409.
    ///   - loadScenario: what `POST /v1/scenario` runs; without one that route answers 409.
    ///   - signers: the keys `POST /v1/send` signs with when the request brings none.
    ///   - eventBufferSize: events that may wait for one slow `/v1/events` client.
    ///   - eventHeartbeat: how often an idle event stream gets a keep-alive comment.
    public init(
        simulator: DeviceSimulator, delivery: DeliveryPipeline? = nil, requestLog: RequestLog, faults: FaultRules, store: PushlabStore? = nil,
        scenarioName: String? = nil, reset: Reset? = nil, loadScenario: LoadScenario? = nil, checkScenario: CheckScenario? = nil, signers: @escaping Signers = { [] },
        eventBufferSize: Int = 1024, eventHeartbeat: Duration = .seconds(15), standIn: StandInBackend = StandInBackend(),
        service: APNsProviderService? = nil, services: ServiceHub? = nil
    ) {
        self.services = services
        self.standIn = standIn
        self.service = service
        self.simulator = simulator
        self.delivery = delivery
        self.requestLog = requestLog
        self.faults = faults
        self.store = store
        currentScenarioName = Mutex(scenarioName)
        resetWorld = reset
        self.loadScenario = loadScenario
        self.checkScenario = checkScenario
        self.signers = signers
        events = EventHub(bufferSize: eventBufferSize, heartbeat: eventHeartbeat)
        metrics = ControlMetrics()
        if let store {
            observationLog = nil
            history = History(observations: store, requests: store)
        } else {
            let log = InMemoryObservationLog()
            observationLog = log
            history = History(observations: log, requests: requestLog)
        }
    }

    /// Starts watching the simulator and the request log; calling the result stops it.
    public func connect() -> @Sendable () -> Void {
        var live: [any ObservationSink] = [events, metrics]
        if let routing = clusterRouting { live = live.map { SimulatedHereSink(base: $0, routing: routing) } }
        let sinks = (([observationLog] as [(any ObservationSink)?]).compactMap { $0 } + live).map(simulator.addSink)
        let observer = requestLog.observe { [events, metrics] entries in
            metrics.record(entries)
            events.publish(entries)
        }
        return { [simulator, requestLog] in
            sinks.forEach(simulator.removeSink)
            requestLog.removeObserver(observer)
        }
    }

    var world: APNsWorld { simulator.world }

    /// The scenario the server started with, or the one `POST /v1/scenario` loaded since.
    var scenarioName: String? {
        get { currentScenarioName.withLock { $0 } }
        set { currentScenarioName.withLock { $0 = newValue } }
    }

    /// The APNs listeners, once they are bound (shown by `/v1/health`).
    public func setListeners(_ bound: [Listener]) async {
        listeners.withLock { $0 = bound }
        await services?.setListeners(bound)
    }

    var apnsListeners: [Listener] { listeners.withLock { $0 } }

    /// Every route, in the order `docs/CONTROL-API.md` lists them; `Embedded/openapi.json`
    /// describes each (a test holds the two to each other).
    var routes: [Route] {
        healthRoutes + keyRoutes + deviceRoutes + appRoutes + interactionRoutes + localNotificationRoutes + liveActivityRoutes
            + observationRoutes + pushRoutes + clockRoutes + faultRoutes + resetRoutes + eventRoutes + metricsRoutes + standInRoutes
            + sendRoutes + latencyRoutes + reportRoutes + serviceRoutes + dashboardRoutes + openAPIRoutes
    }

    /// The router serving every route; errors of any kind become `{"error": …}`. With `token`,
    /// every route needs `authorization: Bearer <token>` (401 otherwise).
    public func router(token: String? = nil) -> Router<BasicRequestContext> {
        let routes = self.routes
        let router = Router()
        router.add(middleware: ControlErrorMiddleware(routes: routes))
        if let token { router.add(middleware: ControlTokenMiddleware(token: token)) }
        if let (node, routing, applier) = cluster.withLock({ $0 }) {
            router.add(middleware: ClusterForwardingMiddleware(node: node, routing: routing))
            router.add(middleware: ClusterReplicationMiddleware(routing: routing, applier: applier, takesPlace: takesPlace))
            router.add(middleware: ClusterShareMiddleware(routing: routing))
        }
        for route in routes {
            router.on(RouterPath(route.path), method: route.method, use: route.handler)
        }
        return router
    }

    /// Makes this control API a cluster node's (`pushlab serve --cluster`): requests about a
    /// phone that another node simulates are answered by that node. Before the router is made.
    public func joinCluster(as node: String, routing: any ClusterRouting) {
        cluster.withLock { $0 = (node, routing, ClusterChangeApplier(routing: routing)) }
    }

    /// Applies every change made to the cluster's world so far, then each new one, until
    /// `stopApplyingClusterChanges`. `address`: this control API's (`http://host:port`), which
    /// the changes are replayed against; `token`: its bearer token, if it has one.
    public func startApplyingClusterChanges(address: String, token: String?) async {
        await cluster.withLock { $0?.applier }?.start(address: address, token: token)
    }

    public func stopApplyingClusterChanges() async {
        await cluster.withLock { $0?.applier }?.stop()
    }

    /// Whether a reset or a scenario load would take place here, so on every node.
    @Sendable private func takesPlace(_ kind: ClusterChange.Kind, _ body: [UInt8]) -> Bool {
        switch kind {
        case .change, .published: return true
        case .reset: return resetWorld != nil
        case .load:
            // Only a body the route takes: `{"path": "…"}`.
            guard loadScenario != nil, let checkScenario, case .object(let fields)? = try? JSONParser.parse(body), fields.count == 1,
                  fields[0].0 == "path", case .string(let path) = fields[0].1 else { return false }
            return (try? checkScenario(path)) != nil
        }
    }

    /// Observations other nodes recorded of phones this node simulates now (a cluster node that
    /// took over their partition): they replace what the history holds of the phones `devices`
    /// accepts, and the routes read them as if observed here.
    public func adopt(_ observations: [Observation], replacing devices: (String) -> Bool) {
        observationLog?.remove { devices($0.deviceID) }
        observationLog?.record(observations)
    }

    /// The cluster's routing, if this is a cluster node's control API.
    var clusterRouting: (any ClusterRouting)? { cluster.withLock { $0?.routing } }

    /// The cluster's routing, when a request asks for the whole cluster's list rather than this
    /// node's share of it (`ClusterLists.localHeader`).
    func clusterWide(_ request: Request) -> (any ClusterRouting)? {
        guard request.headers[ClusterLists.localHeader] == nil else { return nil }
        return clusterRouting
    }

    /// Ends every `/v1/events` stream, so the HTTP server can stop without waiting for them.
    public func closeEventStreams() {
        events.close()
    }
}
