import Logging
import PushlabControl
import PushlabCore
import PushlabDelivery
import PushlabProviderCalls
import PushlabSimulator
import PushlabStore
import PushlabTransport
import Synchronization

/// A running Pushlab: its cores behind the APNs listeners, with the delivery queue and its
/// worker, the store, the control API and the real-time ticker that the configuration asks for.
/// `pushlab serve`, `pushlab run` and `PushlabTestServer` each start one; what they differ in is
/// the configuration. The runtime connects every sink and observer itself and disconnects them
/// at `shutdown()`, in the reverse order.
public final class PushlabRuntime: Sendable {
    public let cores: PushlabCores
    public let configuration: RuntimeConfiguration
    /// The listeners with the ports they got.
    public let listeners: [APNsListener]
    public let store: PushlabStore?
    /// Devices the store brought back as the last run left them (the scenario unchanged); nil
    /// when the scenario's devices started a fresh world in it, or without a store.
    public let reloadedDevices: Int?
    public let controlAPI: ControlAPI?
    public let controlServer: ControlServer?
    /// Why the control API is not running although configured (`ControlSettings.required` false).
    public let controlUnavailable: String?
    /// Pushes acknowledged before the last run stopped (a crash, `kill -9`) that their phones had
    /// not taken: handed to them at start, ahead of anything new.
    public let resumedPushes: Int
    /// Where accepted pushes wait for their phones: the store's file, or memory.
    public let acceptedPushLog: (any AcceptedPushLog)?
    /// The JPush and GeTui APIs' HTTPS listeners that run.
    public let serviceListeners: [ServiceListener]
    /// Why a configured service listener does not run (`ServiceSettings.required` false).
    public let serviceListenersUnavailable: [String]

    private let server: PushlabServer
    private let parts: Parts
    private let stopped = Atomic<Bool>(false)

    /// What shutdown takes down besides the listeners.
    private struct Parts: Sendable {
        var disconnects: [@Sendable () -> Void] = []
        var worker: DeliveryWorker?
        var ticker: Task<Void, Never>?
        var store: PushlabStore?
        var serviceListeners: [ServiceListener] = []

        /// The ticker, the worker (every push answered with 200 reaches its phone first), the
        /// connections in reverse order, then the store's last batch.
        func stop() async throws(StoreError) {
            for listener in serviceListeners { await listener.stop() }
            ticker?.cancel()
            worker?.stop()
            for disconnect in disconnects.reversed() { disconnect() }
            try await store?.close()
        }
    }

    private init(
        cores: PushlabCores, configuration: RuntimeConfiguration, listeners: [APNsListener], store: PushlabStore?, reloadedDevices: Int?,
        controlAPI: ControlAPI?, controlServer: ControlServer?, controlUnavailable: String?, resumedPushes: Int,
        acceptedPushLog: (any AcceptedPushLog)?, serviceListenersUnavailable: [String], server: PushlabServer, parts: Parts
    ) {
        self.serviceListeners = parts.serviceListeners
        self.serviceListenersUnavailable = serviceListenersUnavailable
        self.resumedPushes = resumedPushes
        self.acceptedPushLog = acceptedPushLog
        self.cores = cores
        self.configuration = configuration
        self.listeners = listeners
        self.store = store
        self.reloadedDevices = reloadedDevices
        self.controlAPI = controlAPI
        self.controlServer = controlServer
        self.controlUnavailable = controlUnavailable
        self.server = server
        self.parts = parts
    }

    /// Starts `cores` as `configuration` says. `sinks` see every observation, before the store;
    /// `progress` hears how far reading the store's saved devices has come.
    /// Throws `StoreError` (the store cannot be opened), `ListenerUnavailable` (an APNs listener
    /// cannot bind), `ControlAPIUnavailable` (a required control API cannot bind), or what the
    /// server's TLS files make it throw; whatever had started is stopped again.
    public static func start(
        _ cores: PushlabCores, configuration: RuntimeConfiguration, sinks: [any ObservationSink] = [], progress: LoadProgress? = nil,
        logger: Logger
    ) async throws -> PushlabRuntime {
        var parts = Parts()
        let simulator = cores.simulator
        for sink in sinks {
            let id = simulator.addSink(sink)
            parts.disconnects.append { simulator.removeSink(id) }
        }
        do {
            var reloaded: Int?
            if let settings = configuration.store {
                let (store, count) = try openStore(settings, for: cores, progress: progress)
                parts.store = store
                reloaded = count
                // The store has the reloaded devices' launches from the run that made them.
                if count != nil { simulator.releaseCreationLaunches(observe: false) }
                parts.disconnects.append(store.connect(observations: simulator, requests: cores.service.log))
                parts.disconnects.append(cores.delivery.heed(store))
                // The store keeps the requests (up to its history limit) and answers every query about them.
                cores.service.log.keepNone()
            }
            // A cluster node's phones are spread over the nodes, and one node's services would
            // know only its own: JPush and GeTui run in a single process (docs/SERVICES.md).
            if !cores.isClusterNode {
                simulator.setThirdPartySDKConnector(cores.services)
                // Phones the store brought back keep their SDKs' ids; the services start empty.
                if reloaded != nil { cores.services.handle(simulator.registeredSDKs()) }
                parts.disconnects.append {
                    simulator.setThirdPartySDKConnector(nil)
                    Task { await cores.services.shutdown() }
                }
            }
            let providerCalls = ProviderHTTPClient(simulator: simulator)
            simulator.setProviderRequestSender(providerCalls)
            parts.disconnects.append {
                simulator.setProviderRequestSender(nil)
                Task { await providerCalls.shutdown() }
            }
            // The store's file keeps the log across a crash; anything else keeps it in memory. A
            // cluster node's pipeline is handed pushes the engine's log holds already.
            var log: (any AcceptedPushLog)?
            var resumed: [LoggedPush] = []
            if case .queued(let capacity) = configuration.delivery, capacity > 0 {
                if cores.isClusterNode {
                    log = nil
                } else if let store = parts.store, store.durability != .process {
                    log = store
                    resumed = try Self.untaken(in: store)
                } else {
                    log = InMemoryAcceptedPushLog()
                }
                parts.worker = DeliveryWorker(pipeline: cores.delivery, capacity: capacity, log: log)
            }
            // Ahead of anything the listeners accept.
            cores.delivery.resume(resumed)
            let control = configuration.control.map { _ in cores.controlAPI(store: parts.store) }
            if let control { parts.disconnects.append(control.connect()) }

            // --durable: every answer waits for its record's commit.
            let rules: any APNsConnectionFactory = if configuration.store?.durable == true, let store = parts.store {
                CommittingConnectionFactory(service: cores.service, commits: store)
            } else {
                cores.service
            }
            let service = control.map { $0.metrics.measuring(rules) } ?? rules
            let server = try PushlabServer(configuration: configuration.server, service: service, logger: logger)
            let listeners: [APNsListener]
            do {
                listeners = try await server.start()
            } catch {
                await server.shutdown()
                throw error
            }
            await control?.setListeners(listeners)
            if control == nil { await cores.services.setListeners(listeners) }
            var unavailableServices: [String] = []
            if let settings = configuration.services, !cores.isClusterNode {
                do {
                    (parts.serviceListeners, unavailableServices) = try await startServiceListeners(settings, cores: cores, server: configuration.server, logger: logger)
                } catch {
                    await server.shutdown()
                    throw error
                }
            }
            let (controlServer, unavailable): (ControlServer?, String?)
            do {
                (controlServer, unavailable) = try await startControlServer(control, configuration.control, logger: logger)
            } catch {
                await server.shutdown()
                throw error
            }
            if let controlServer {
                let host = controlServer.host == "0.0.0.0" || controlServer.host == "::" ? "127.0.0.1" : controlServer.host
                providerCalls.setStandInURL("http://\(host.contains(":") ? "[\(host)]" : host):\(controlServer.port)/stand-in")
            }
            // Everything that observes and calls backends is connected: the apps that were
            // created running announce their tokens now.
            simulator.releaseCreationLaunches(observe: true)
            parts.ticker = configuration.tickInterval.map { interval in
                Task.detached {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        cores.delivery.runDueEvents()
                    }
                }
            }
            return PushlabRuntime(
                cores: cores, configuration: configuration, listeners: listeners, store: parts.store, reloadedDevices: reloaded,
                controlAPI: control, controlServer: controlServer, controlUnavailable: unavailable, resumedPushes: resumed.count,
                acceptedPushLog: log, serviceListenersUnavailable: unavailableServices, server: server, parts: parts
            )
        } catch {
            try? await parts.stop()
            throw error
        }
    }

    /// Opens the store. When its devices were seeded from this very scenario, the changes saved
    /// since are put on top of the scenario's devices (the state of the last run); otherwise
    /// the store starts over from this scenario. Either way the scenario's own devices are never
    /// written: the store keeps only what changed since. Returns the devices reloaded, if any.
    private static func openStore(
        _ settings: RuntimeConfiguration.StoreSettings, for cores: PushlabCores, progress: LoadProgress?
    ) throws(StoreError) -> (PushlabStore, reloaded: Int?) {
        // Before the store's writer starts: it would save the scenario's devices as changed.
        cores.simulator.discardChanges()
        let store = try PushlabStore(
            path: settings.path, devices: cores.simulator, historyLimit: settings.historyLimit, crashWindow: settings.crashWindow,
            durable: settings.durable
        )
        let fingerprint = cores.scenario?.fingerprint ?? ""
        if settings.path != ":memory:", try store.seededScenario() == fingerprint {
            try store.load(progress: progress)
            return (store, cores.simulator.deviceCount)
        }
        try store.reseed(fromScenario: fingerprint)
        return (store, nil)
    }

    /// What the store's log kept from the last run and its phones had not taken.
    private static func untaken(in store: PushlabStore) throws(StoreError) -> [LoggedPush] {
        do {
            return try store.untaken()
        } catch {
            throw StoreError(.unreadable, error.description)
        }
    }

    private static func startControlServer(
        _ api: ControlAPI?, _ settings: RuntimeConfiguration.ControlSettings?, logger: Logger
    ) async throws(ControlAPIUnavailable) -> (ControlServer?, unavailable: String?) {
        guard let api, let settings else { return (nil, nil) }
        // Hummingbird's start-up lines would land in the middle of the caller's banner.
        var quiet = Logger(label: "pushlab.control")
        quiet.logLevel = logger.logLevel <= .debug ? logger.logLevel : max(logger.logLevel, .warning)
        do {
            return (try await ControlServer.start(api: api, host: settings.host, port: settings.port, token: settings.token, logger: quiet), nil)
        } catch {
            let failure = ControlAPIUnavailable(host: settings.host, port: settings.port, reason: "\(error)")
            if settings.required { throw failure }
            return (nil, failure.description)
        }
    }

    private static func startServiceListeners(
        _ settings: RuntimeConfiguration.ServiceSettings, cores: PushlabCores, server: ServerConfiguration, logger: Logger
    ) async throws -> ([ServiceListener], unavailable: [String]) {
        var quiet = Logger(label: "pushlab.services")
        quiet.logLevel = logger.logLevel <= .debug ? logger.logLevel : max(logger.logLevel, .warning)
        var started: [ServiceListener] = []
        var unavailable: [String] = []
        for (kind, port) in [(ServiceListener.Kind.jpush, settings.jpushPort), (.getui, settings.getuiPort)] {
            guard let port else { continue }
            do {
                started.append(try await ServiceListener.start(
                    kind, hub: cores.services, host: settings.host, port: port, certificateChainFile: server.certificateChainFile,
                    privateKeyFile: server.privateKeyFile, logger: quiet
                ))
            } catch {
                let failure = ServiceListenerUnavailable(kind: kind, host: settings.host, port: port, reason: "\(error)")
                if settings.required {
                    for listener in started { await listener.stop() }
                    throw failure
                }
                unavailable.append(failure.description)
            }
        }
        return (started, unavailable)
    }

    /// Graceful shutdown, as APNs does it: the control API stops, every connection gets GOAWAY
    /// `Shutdown` and its streams finish (up to the grace period); then every push answered
    /// reaches its phone and the store writes its last batch (its error, if any, is thrown).
    /// Calling it again does nothing.
    public func shutdown() async throws(StoreError) {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let controlServer { await controlServer.stop() }
        await server.shutdown()
        try await parts.stop()
    }
}

/// A JPush or GeTui API listener could not be bound.
public struct ServiceListenerUnavailable: Error, CustomStringConvertible {
    public let kind: ServiceListener.Kind
    public let host: String
    public let port: Int
    public let reason: String

    public var description: String { "The \(kind == .jpush ? "JPush" : "GeTui") API cannot listen on \(host):\(port): \(reason)" }
}

/// The control API's address could not be bound.
public struct ControlAPIUnavailable: Error, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let reason: String

    public var description: String { "The control API cannot listen on \(host):\(port): \(reason)" }
}
