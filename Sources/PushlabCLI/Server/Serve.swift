import ArgumentParser
import CMallocTuning
import Foundation
import Logging
import NIOCore
import PushlabCluster
import PushlabControl
import PushlabCore
import PushlabRuntime
import PushlabScenario
import PushlabSimulator
import PushlabStore
import PushlabTransport

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start the APNs mock: development (sandbox) and production listeners.",
        discussion: """
        Serves Apple's provider API (device pushes, broadcasts) and broadcast channel management over \
        HTTP/2 + TLS. By default development (sandbox) listens on 127.0.0.1:2197 and production on \
        127.0.0.1:2196, each serving every API (2196 is also Apple's production channel management \
        port), and development channel management alone on 127.0.0.1:2195, as Apple's. A request \
        whose TLS SNI or :authority names an Apple host (api.sandbox.push.apple.com, \
        api.development.push.apple.com, api.push.apple.com, api-manage-broadcast[.sandbox].push.apple.com, \
        api-broadcast[.sandbox].push.apple.com) is served in that host's environment whatever the port. \
        The control API (plain HTTP, docs/CONTROL-API.md) listens on 127.0.0.1:2198.

        Settings come from flags, then --config FILE (YAML, same names), then the defaults. \
        SIGINT or SIGTERM shuts down gracefully: GOAWAY {"reason":"Shutdown"}, in-flight streams \
        finish, exit 0. A crash or kill -9 loses at most the acknowledged pushes of the last \
        --crash-window-ms (250 ms) from the store, and none with --durable.

        Examples:
          pushlab serve
          pushlab serve --development-port 8443 --production-port 0 --threads 4
          pushlab serve --channel-management-port off
          pushlab serve --config pushlab.yaml --client-ca certs/ca.pem
          pushlab serve --durable --db pushes.db
          pushlab serve --cluster redis://10.0.0.5:7000,10.0.0.6:7000 --host 0.0.0.0
        """
    )

    @Option(help: "YAML file with the same settings as these flags.")
    var config: String?

    @Option(help: "Scenario file: keys, apps, device tokens and APNs policy (default scenarios/default.yaml).")
    var scenario: String?

    @Option(help: "SQLite store for observations, requests and device state (default pushlab.db; :memory: keeps nothing).")
    var db: String?

    @Option(help: "Observations and requests the store keeps, each (default 1000000: about 0.3 GB of observations and 0.1 GB of requests). The file outlives runs: older batches are deleted once a tenth more have come, and under a load faster than the disk what waits past the limit is never written, so nothing the limit keeps is lost. 0 keeps everything; a load faster than the disk then loses what passes the 2,000,000-record backlog. Devices and Notification Center are always kept.")
    var historyLimit: Int?

    @Option(help: "Milliseconds within which every request's record, an acknowledged push's among them, is committed to the store, under any load: what kill -9 can lose at most (default 250, at least 10). The simulated phones' observations may wait longer while the server is busy.")
    var crashWindowMs: Int?

    @Flag(help: "Answer each request only once its record is committed to the store (group commit: one transaction answers every request recorded since the last one), so kill -9 loses no acknowledged push; a failed commit answers 500 InternalServerError. Costs throughput (docs/PERFORMANCE.md). Needs a file store.")
    var durable = false

    @Option(help: "real (default) or manual: a manual clock stands still until set or advanced (control API, scenarios).")
    var clock: String = "real"

    @Option(help: "With --clock manual, the time it starts at (ISO 8601, default now).")
    var clockStart: String?

    @Option(help: "Address both listeners bind to (default 127.0.0.1).")
    var host: String?

    @Option(help: "Address the control API (plain HTTP) binds to (default 127.0.0.1: it can change the world).")
    var controlHost: String?

    @Option(help: "Control API port; 0 picks a free one (default 2198).")
    var controlPort: Int?

    @Option(help: "Bearer token every control API request must carry (or set PUSHLAB_CONTROL_TOKEN; pushlab devices, observations and send read that variable). Required when --control-host is not a loopback address.")
    var controlToken: String?

    @Option(help: "Development (sandbox) port; 0 picks a free one (default 2197).")
    var developmentPort: Int?

    @Option(help: "Production port; 0 picks a free one (default 2196).")
    var productionPort: Int?

    @Option(help: "Development channel management port (broadcast channels only); 0 picks a free one, off runs none (default 2195).")
    var channelManagementPort: PortSetting?

    @Option(help: "JPush's API (api.jpush.cn, device.jpush.cn, report.jpush.cn) over HTTPS with the server certificate; 0 picks a free port, off runs none (default 2200).")
    var jpushPort: PortSetting?

    @Option(help: "GeTui's API (restapi.getui.com) over HTTPS with the server certificate; 0 picks a free port, off runs none (default 2201).")
    var getuiPort: PortSetting?

    @Option(help: "Server certificate chain, PEM (default certs/server.pem).")
    var tlsCert: String?

    @Option(help: "Server private key, PEM (default certs/server-key.pem).")
    var tlsKey: String?

    @Option(help: "CA bundle client certificates are verified against (default certs/ca.pem if present).")
    var clientCa: String?

    @Option(help: "MAX_CONCURRENT_STREAMS announced on each connection (default 1000, as APNs).")
    var maxConcurrentStreams: UInt32?

    @Option(help: "Answer as slowly as APNs does: a shipped latency profile (apple-like, bad-day) or a YAML/JSON file spelled as a scenario's policy.latency; it replaces the scenario's (docs/LOAD-TESTING.md).")
    var latency: String?

    @Flag(help: "Record the provider report from the start: what each provider did, and what of it Apple warns against (pushlab report, GET /v1/report, the dashboard).")
    var report = false

    @Option(help: "Event loop threads (default: one per core).")
    var threads: Int?

    @Option(help: "Accepted pushes that may wait for the simulated devices (default 2000000, about 420 bytes each with a 250-byte payload): APNs answers without waiting for the simulator, which catches up below the event loops' priority; a full queue slows the answers and loses nothing, and a load longer than 10 s brings it down to a 64th of this, so that little waits when the load stops; reads of devices and observations wait for what came before them. 0 delivers each push on the event loop before answering.")
    var deliveryQueue: Int?

    @Option(help: "Seconds a graceful shutdown waits for in-flight streams (default 10).")
    var shutdownGracePeriod: Double?

    @Option(help: "Join a cluster of Pushlab nodes on this Redis Cluster (redis://host:port[,host:port…]): the nodes share the log of accepted pushes, the phones and their observations, and each simulates its share of the phones (docs/CLUSTER.md). Every node runs the same scenario. --durable then acknowledges a push once its log entry is on a replica too; there is no local store.")
    var cluster: String?

    @Option(help: "This node's name in the cluster (default: host name and process id).")
    var nodeID: String?

    @Option(help: "Partitions of phones the cluster is split into, set by its first node (default 24); later nodes take the cluster's.")
    var clusterPartitions: Int?

    @Option(help: "Take no phones until this many nodes are live (at most a minute): nodes started together then each make only their share, rather than the first making every phone and letting most go (default 1).")
    var clusterExpect: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default info).")
    var logLevel: String = "info"

    func validate() throws {
        for (name, port) in [("--development-port", developmentPort), ("--production-port", productionPort), ("--control-port", controlPort)] {
            if let port, !(0...65535).contains(port) { throw ValidationError("\(name) must be 0...65535, not \(port)") }
        }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if let maxConcurrentStreams, maxConcurrentStreams < 1 { throw ValidationError("--max-concurrent-streams must be at least 1") }
        if clock != "real", clock != "manual" { throw ValidationError("--clock must be real or manual, not \(clock)") }
        if clockStart != nil, clock != "manual" { throw ValidationError("--clock-start needs --clock manual") }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical") }
        if cluster == nil, nodeID != nil || clusterPartitions != nil || clusterExpect != nil {
            throw ValidationError("--node-id, --cluster-partitions and --cluster-expect need --cluster")
        }
        if let clusterExpect, !(1...1_000).contains(clusterExpect) { throw ValidationError("--cluster-expect must be 1...1000, not \(clusterExpect)") }
        if let clusterPartitions, !(1...16_384).contains(clusterPartitions) { throw ValidationError("--cluster-partitions must be 1...16384, not \(clusterPartitions)") }
    }

    func run() async throws {
        let file = try config.map(ServeConfigurationFile.load(path:))
        let server = try resolvedConfiguration(file: file)
        let queueCapacity = deliveryQueue ?? file?.deliveryQueue ?? 2_000_000
        guard queueCapacity >= 0 else { throw ValidationError("--delivery-queue (deliveryQueue in a config file) must be 0 or more, not \(queueCapacity)") }
        let keptHistory = historyLimit ?? file?.historyLimit ?? 1_000_000
        guard keptHistory >= 0 else { throw ValidationError("--history-limit (historyLimit in a config file) must be 0 or more, not \(keptHistory)") }
        let crashWindow = crashWindowMs ?? file?.crashWindowMs ?? 250
        let shortest = Int(PushlabStore.shortestCrashWindow / .milliseconds(1))
        guard crashWindow >= shortest else { throw ValidationError("--crash-window-ms (crashWindowMs in a config file) must be at least \(shortest), not \(crashWindow)") }
        let seeds = try cluster.map(ClusterEngine.seeds)
        if seeds != nil, let given = db ?? file?.db, given != ":memory:" {
            throw ValidationError("--db \(given) would keep one node's copy of the phones: a cluster keeps its phones, pushes and observations in the engine (leave --db out)")
        }
        let storePath = db ?? file?.db ?? (seeds == nil ? "pushlab.db" : ":memory:")
        let isDurable = durable || file?.durable == true
        guard !isDurable || storePath != ":memory:" || seeds != nil else {
            throw ValidationError("--durable waits for commits to the store's file, and --db :memory: keeps nothing: pass --db FILE")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            return handler
        }
        let logger = Logger(label: "pushlab")
#if os(Linux)
        if pushlab_jemalloc_serves_malloc() == 0 {
            logger.warning("jemalloc does not serve malloc in this build: the C library's allocator costs pushes a tenth more CPU under load")
        }
#endif
        let progress = StartupProgress(terminal: .standardOutput)
        // The line goes before the banner, or before whatever error ends the start.
        defer { progress.finish() }
        let scenario = try loadScenario(file: file)
        var manualStart = try manualClockStart()
        let membership = try await joinCluster(seeds, durable: isDurable, manualStart: manualStart, logger: logger)
        if let membership { manualStart = membership.manualStart }
        let streams = maxConcurrentStreams ?? file?.http2?.maxConcurrentStreams
        let latencyProfile = try (latency ?? file?.latency).map(LatencySetting.profile(from:))
        let cores: PushlabCores
        // The node is made around the cores' simulator; until it has a share, no phone is its.
        let nodeCores = membership?.coresOptions(for: scenario)
        do {
            cores = try PushlabCores(
                scenario: scenario, manualStart: manualStart, progress: progress.reporter,
                tokenSeed: nodeCores?.tokenSeed, sink: nodeCores?.sink, simulatedHere: nodeCores?.simulatedHere
            ) { loaded in
                if let streams { loaded.policy.maxConcurrentStreams = streams }
                if let latencyProfile { loaded.policy.latency = latencyProfile }
            }
        } catch let error as Scenario.LoadError {
            throw ValidationError(error.description)
        }
        let node = membership?.makeNode(cores: cores)
        if report || file?.report == true { cores.service.report?.start(at: cores.clock.now()) }
        let requestedControlPort = controlPort ?? file?.controlPort
        let control = RuntimeConfiguration.ControlSettings(
            host: controlHost ?? file?.controlHost ?? "127.0.0.1", port: requestedControlPort ?? Self.defaultControlPort,
            // A busy default port is not fatal (another pushlab may hold it): the banner says so.
            // A port given with --control-port or in the config file must bind.
            required: requestedControlPort != nil || seeds != nil, token: controlToken ?? ControlAPIGet.token
        )
        guard control.isLoopback || control.token != nil else {
            throw ValidationError("The control API would listen on \(control.host), beyond this machine, and it can change the world: pass --control-token TOKEN (or set \(ControlAPIGet.tokenVariable)), or keep --control-host on a loopback address.")
        }
        let requestedJPush = jpushPort ?? file?.jpushPort
        let requestedGeTui = getuiPort ?? file?.getuiPort
        let services = RuntimeConfiguration.ServiceSettings(
            host: server.listeners.first?.host ?? "127.0.0.1",
            jpushPort: (requestedJPush ?? .port(Self.defaultJPushPort)).port, getuiPort: (requestedGeTui ?? .port(Self.defaultGeTuiPort)).port,
            // Busy default ports are not fatal (another pushlab may hold them): the banner says so.
            required: requestedJPush != nil || requestedGeTui != nil
        )
        let configuration = RuntimeConfiguration(
            server: server,
            delivery: queueCapacity > 0 ? .queued(capacity: queueCapacity) : .inline,
            // A cluster node keeps no store: the engine has its phones, and the phones' state
            // and history must go there alone (a store would take the devices' changes first).
            store: membership != nil ? nil : .init(
                path: storePath, historyLimit: keptHistory > 0 ? keptHistory : nil, crashWindow: .milliseconds(crashWindow), durable: isDurable
            ),
            control: control,
            tickInterval: .milliseconds(100),
            services: services
        )
        let runtime: PushlabRuntime
        do {
            runtime = try await PushlabRuntime.start(cores, configuration: configuration, progress: progress.reporter, logger: logger)
        } catch {
            throw CLIFailure(Self.startFailure(error))
        }
        progress.finish()
        await membership?.start(runtime, controlToken: control.token)
        printBanner(runtime, scenario: scenario, cluster: membership.flatMap { membership in node.map { (membership.engine, $0) } })
        await ShutdownSignal.wait()
        logger.info("Shutting down: GOAWAY Shutdown on every connection")
        // The node's phones go to the others first: its last takings written, its leases given up.
        await membership?.stop(runtime)
        do {
            try await runtime.shutdown()
        } catch {
            logger.error("The store's last batch was not written: \(error.description)")
        }
    }

    static let defaultControlPort = 2198
    static let defaultChannelManagementPort = 2195
    static let defaultJPushPort = 2200
    static let defaultGeTuiPort = 2201

    /// What went wrong at start, with the flag that changes it.
    static func startFailure(_ error: any Error) -> String {
        switch error {
        case let listener as ListenerUnavailable:
            let flag = listener.listener.role == .channelManagement ? "--channel-management-port"
                : listener.listener.environment == .development ? "--development-port" : "--production-port"
            let hint = listener.addressInUse ? " (another pushlab serve?)" : ""
            return "\(listener.description)\(hint). Pass \(flag) with another port, or 0 for a free one."
        case let control as ControlAPIUnavailable:
            return "\(control.description). Pass --control-port 0 for a free port."
        case let service as ServiceListenerUnavailable:
            return "\(service.description). Pass --\(service.kind.rawValue)-port with another port, 0 for a free one, or off."
        case let store as StoreError:
            return "\(store.description). Pass --db with a writable path, or --db :memory: to keep nothing."
        default:
            return "\(error)"
        }
    }

    /// Nil for real time; with `--clock manual`, the start (given, or now).
    private func manualClockStart() throws -> EpochMilliseconds? {
        guard clock == "manual" else { return nil }
        guard let clockStart else { return SystemClock().now() }
        guard let date = ISO8601DateFormatter().date(from: clockStart) else {
            throw ValidationError("--clock-start must be an ISO 8601 time like 2026-01-01T00:00:00Z, not \(clockStart)")
        }
        return EpochMilliseconds((date.timeIntervalSince1970 * 1000).rounded())
    }

    private func resolvedConfiguration(file: ServeConfigurationFile?) throws -> ServerConfiguration {
        let host = host ?? file?.host ?? "127.0.0.1"
        let certificate = tlsCert ?? file?.tls?.certificate ?? DefaultFiles.path("certs/server.pem")
        let key = tlsKey ?? file?.tls?.key ?? DefaultFiles.path("certs/server-key.pem")
        var clientCA = clientCa ?? file?.tls?.clientCA
        if clientCA == nil, DefaultFiles.exists("certs/ca.pem") { clientCA = DefaultFiles.path("certs/ca.pem") }
        for (what, path) in [("TLS certificate", certificate), ("TLS key", key), ("client CA", clientCA)] {
            if let path, !FileManager.default.fileExists(atPath: path) {
                throw ValidationError("\(what) \(path) does not exist. Run pushlab from the repository root, make certificates with certs/generate.sh, or pass --tls-cert/--tls-key/--client-ca.")
            }
        }
        var listeners: [ServerConfiguration.Listener] = [
            .init(host: host, port: developmentPort ?? file?.developmentPort ?? 2197, environment: .development),
            .init(host: host, port: productionPort ?? file?.productionPort ?? 2196, environment: .production),
        ]
        let requestedChannelManagement = channelManagementPort ?? file?.channelManagementPort
        if let port = (requestedChannelManagement ?? .port(Self.defaultChannelManagementPort)).port {
            // A busy default port is not fatal (another pushlab may hold it): the banner says so.
            listeners.append(.init(host: host, port: port, environment: .development, role: .channelManagement, required: requestedChannelManagement != nil))
        }
        return ServerConfiguration(
            listeners: listeners,
            certificateChainFile: certificate,
            privateKeyFile: key,
            clientCertificateAuthoritiesFile: clientCA,
            threads: threads ?? file?.threads ?? System.coreCount,
            shutdownGracePeriod: .milliseconds(Int((shutdownGracePeriod ?? file?.shutdownGracePeriodSeconds ?? 10) * 1000))
        )
    }

    private func loadScenario(file: ServeConfigurationFile?) throws -> Scenario {
        let path = scenario ?? file?.scenario ?? DefaultFiles.path("scenarios/default.yaml")
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("Scenario \(path) does not exist. Run pushlab from the repository root or pass --scenario FILE.")
        }
        var loaded: Scenario
        do {
            loaded = try Scenario.load(path: path)
        } catch let error as Scenario.LoadError {
            throw ValidationError(error.description)
        }
        // Flags and the config file win over the scenario's policy.
        if let streams = maxConcurrentStreams ?? file?.http2?.maxConcurrentStreams { loaded.policy.maxConcurrentStreams = streams }
        if let setting = latency ?? file?.latency { loaded.policy.latency = try LatencySetting.profile(from: setting) }
        return loaded
    }

    /// The Apple host a listener stands for, and the APIs it serves.
    static func describe(_ listener: APNsListener) -> String {
        let sandbox = listener.environment == .development ? "sandbox." : ""
        switch listener.role {
        case .provider: return "(as api.\(sandbox)push.apple.com)"
        case .channelManagement: return "(as api-manage-broadcast.\(sandbox)push.apple.com)  broadcast channel management only"
        case .both: return "(as api.\(sandbox)push.apple.com)  and broadcast channel management"
        }
    }

    private func printBanner(_ runtime: PushlabRuntime, scenario: Scenario, cluster: (ClusterEngine, ClusterNode)?) {
        let simulator = runtime.cores.simulator
        var lines = ["Pushlab is serving the APNs provider API (HTTP/2 + TLS):"]
        for listener in runtime.listeners {
            let host = listener.host.contains(":") ? "[\(listener.host)]" : listener.host
            lines.append("  \(listener.environment.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) https://\(host):\(listener.port)  \(Self.describe(listener))")
        }
        for wanted in runtime.configuration.server.listeners where !wanted.required && !runtime.listeners.contains(where: { $0.role == wanted.role && $0.environment == wanted.environment }) {
            lines.append("  channel management  not running: \(wanted.host):\(wanted.port) is taken (pass --channel-management-port 0 for a free port)")
        }
        if let control = runtime.controlServer {
            let token = runtime.configuration.control?.token == nil ? "" : "  (bearer token required)"
            lines.append("  control API  \(control.url)\(token)")
            lines.append("  dashboard    \(control.url)/  (open it in a browser)")
        } else if let why = runtime.controlUnavailable {
            lines.append("  control API  not running: \(why) (pass --control-port 0 for a free port)")
        }
        for listener in runtime.serviceListeners {
            let hosts = listener.kind == .jpush ? "as api.jpush.cn, device.jpush.cn, report.jpush.cn" : "as restapi.getui.com"
            lines.append("  \((listener.kind == .jpush ? "JPush API" : "GeTui API").padding(toLength: 11, withPad: " ", startingAt: 0))  \(listener.url)  (\(hosts))")
        }
        for why in runtime.serviceListenersUnavailable { lines.append("  not running: \(why) (pass --jpush-port/--getui-port 0 for a free port)") }
        lines.append("  certificate  \(runtime.configuration.server.certificateChainFile)  (trust certs/ca.pem in your client)")
        lines.append("Scenario \(scenario.name) (\(scenario.source)): \(scenario.keys.count) signing key(s), \(scenario.apps.count) app(s), \(scenario.tokens.count) device token(s)")
        for key in scenario.keys {
            lines.append("  key \(key.keyID)  team \(key.teamID)  \(key.environments.map(\.rawValue).sorted().joined(separator: "+"))")
        }
        // The default scenario's tokens (one per push type with its own, and both 410s) fit.
        let shownTokens = 12
        for token in scenario.tokens.prefix(shownTokens) {
            let state: String = switch token.state {
            case .active: "active"
            case .unregistered: "unregistered (410)"
            case .expired: "expired (410)"
            }
            let topic = token.topic
            lines.append("  token \(token.token)  \(token.environment.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0))  \(topic)  \(state)")
        }
        if scenario.tokens.count > shownTokens { lines.append("  … and \(scenario.tokens.count - shownTokens) more tokens") }
        let devices = simulator.deviceCount
        if let (engine, node) = cluster {
            lines += Self.clusterLines(engine, node, simulated: devices, of: simulator.scenarioPhoneCount ?? devices)
        }
        let storePath = runtime.store?.path ?? ":memory:"
        if cluster != nil {
            lines.append("No store of its own: the phones, the pushes and what the phones observe are in Redis")
        } else if let reloaded = runtime.reloadedDevices {
            lines.append("Store \(storePath): \(reloaded) device(s) reloaded as the last run left them (the scenario is unchanged)")
        } else {
            lines.append("Store \(storePath): devices from the scenario\(storePath == ":memory:" ? "; nothing is kept" : "")")
        }
        if let store = runtime.store, storePath != ":memory:" {
            lines.append(store.isDurable
                ? "  durable: every answer waits for its record's commit; kill -9 loses no acknowledged push"
                : "  crash window \(Int(store.crashWindow / .milliseconds(1))) ms: every acknowledged push is committed within it (--durable: before its answer)")
        }
        if runtime.resumedPushes > 0 {
            lines.append("  resumed \(runtime.resumedPushes) push(es) acknowledged before the last run stopped and not yet taken by their phones")
        }
        if devices > 0 { lines.append("Simulated devices (\(devices)):") }
        for device in simulator.devices(limit: 8) {
            lines.append("  \(device.id)  \(device.name)\(device.online ? "" : "  (offline)")")
            for app in device.apps {
                lines.append("    \(app.bundleID)  \(app.api.rawValue)  \(app.state.rawValue)  token \(app.deviceToken.isEmpty ? "(random)" : app.deviceToken)")
            }
        }
        if devices > 8 { lines.append("  … and \(devices - 8) more devices") }
        if devices > 0, cluster == nil { lines.append("What they observe: pushlab observations --db \(storePath) [--device ID]") }
        lines.append("Ready. Press Ctrl-C to stop.")
        // Unbuffered, so a script waiting for "Ready." sees it at once even through a pipe.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
