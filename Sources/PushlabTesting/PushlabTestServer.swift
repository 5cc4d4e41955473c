import Foundation
import Logging
import PushlabCore
import PushlabRuntime
import PushlabScenario
import PushlabSimulator
import PushlabTransport

/// Pushlab in-process for one test: the APNs provider API over HTTP/2 + TLS on free loopback
/// ports (development and production), simulated devices behind it, a manual clock, fault
/// rules, and every request and observation kept in memory. It runs on the same runtime as
/// `pushlab serve`, with pushes queued for the phones as there (or `.inline`, if a test wants
/// each push delivered before its answer).
///
/// ```swift
/// let server = try await PushlabTestServer.start()
/// let token = try server.addDevice("phone", app: "com.example.app")
/// // point the client at server.developmentURL, trusting server.caCertificatePath,
/// // signing with server.signingKey; push to `token`
/// let banner = try await server.waitForObservation(device: "phone", kind: .banner)
/// await server.stop()
/// ```
///
/// Call `stop()` when done (or use `withPushlabTestServer`): the server owns a thread.
public final class PushlabTestServer: Sendable {
    /// The app the world knows from the start, for the signing key's team.
    public static let defaultBundleID = "com.pushlab.demo"

    /// `https://localhost:PORT`, the stand-in for `api.sandbox.push.apple.com`.
    public let developmentURL: URL
    /// `https://localhost:PORT`, the stand-in for `api.push.apple.com`.
    public let productionURL: URL
    /// The address both listeners are bound to (`127.0.0.1`); the certificate also names it.
    public let host: String
    public let developmentPort: Int
    public let productionPort: Int

    public let certificates: TLSCertificates
    /// The PEM file a client must trust to accept the server's certificate.
    public var caCertificatePath: String { certificates.certificateAuthority.path }
    /// A key the world knows, so a client can authenticate with a provider token at once.
    public let signingKey: ProviderSigningKey

    /// Keys, apps and device tokens APNs knows; change it to test what APNs refuses.
    public let world: APNsWorld
    /// The simulated devices: their apps, states, interactions and local notifications.
    public let simulator: DeviceSimulator
    public let clock: PushlabTestClock
    /// Rules that make APNs misbehave (status and reason, delay, GOAWAY, reset, close).
    public let faults: FaultRules
    /// Every request APNs answered, newest first (`requests.entries()`).
    public let requests: RequestLog
    /// Everything the devices observed, in order (`observations(device:)` reads it).
    public let observationLog: InMemoryObservationLog

    let waiters: ObservationWaiters
    private let apns: APNsProviderService
    let runtime: PushlabRuntime
    let membership: ClusterMembership?

    /// The APNs rules new connections use; existing connections keep the one they started with.
    public var policy: APNsPolicy {
        get { apns.policy }
        set { apns.policy = newValue }
    }

    /// Starts a server.
    /// - Parameters:
    ///   - scenario: a scenario file (`docs/SCENARIOS.md`) whose keys, apps, tokens, devices and
    ///     simulator settings the world starts with; nil starts with only the signing key and
    ///     `defaultBundleID`.
    ///   - policy: the APNs rules; a scenario's `policy:` section is applied on top of them.
    ///   - simulatorSettings: the simulator's rules; nil takes the scenario's (or the defaults).
    ///   - clockStart: where the manual clock starts; nil is now, which keeps provider tokens
    ///     minted from the real time (as APNSwift does) valid.
    ///   - certificates: what TLS serves; the repository's test certificates by default.
    ///   - signingKey: the key registered for clients; the sample `PUSHLAB001` key by default. A
    ///     scenario that declares the same key id keeps its own declaration (revoked, limited to
    ///     an environment, ...).
    ///   - delivery: `.queued()` as `pushlab serve` delivers (reads and waits see every push
    ///     answered before them), or `.inline`.
    ///   - cluster: a node of a Pushlab cluster on this Redis Cluster instead of a Pushlab of its
    ///     own (`ClusterNode`): the engine decides every 410 and 429 and holds the log of
    ///     accepted pushes, and the node simulates its share of the scenario's phones. Start
    ///     returns once the node has a share (or waits for the other nodes it expects).
    public static func start(
        scenario: String? = nil,
        policy: APNsPolicy = APNsPolicy(),
        simulatorSettings: SimulatorSettings? = nil,
        clockStart: Date? = nil,
        certificates: TLSCertificates = .bundled,
        signingKey: ProviderSigningKey? = nil,
        delivery: RuntimeConfiguration.Delivery = .queued(),
        cluster: ClusterNode? = nil
    ) async throws -> PushlabTestServer {
        let signingKey = try signingKey ?? ProviderSigningKey.bundled()
        var world = try scenario.map { try Scenario.load(path: $0, basePolicy: policy) }
            ?? Scenario.parse(yaml: "name: PushlabTestServer\n", source: "PushlabTestServer", basePolicy: policy)
        if let problem = world.policy.problem { throw PushlabTestingError("The APNs policy is not usable: \(problem)") }
        if let simulatorSettings { world.simulatorSettings = simulatorSettings }
        if let problem = world.simulatorSettings.problem { throw PushlabTestingError("The simulator settings are not usable: \(problem)") }
        try certificates.checkReadable()
        // A scenario that declares the same key or app keeps its own declaration.
        if !world.keys.contains(where: { $0.keyID == signingKey.keyID }) { world.keys.append(signingKey.registration) }
        if !world.apps.contains(where: { $0.bundleID == defaultBundleID }) {
            world.apps.append(AppRecord(bundleID: defaultBundleID, teamID: signingKey.teamID))
        }
        var start = clockStart.map { EpochMilliseconds(($0.timeIntervalSince1970 * 1000).rounded()) } ?? SystemClock().now()
        var membership: ClusterMembership?
        if let cluster {
            membership = try await cluster.join(manualStart: start, logger: logger)
            if let agreed = membership?.manualStart { start = agreed }
        }
        // The runtime's own cores, as `pushlab serve` makes them from a scenario.
        let node = membership?.coresOptions(for: world)
        let cores = try PushlabCores(scenario: world, manualStart: start, tokenSeed: node?.tokenSeed, sink: node?.sink, simulatedHere: node?.simulatedHere)
        _ = membership?.makeNode(cores: cores)

        // The log first: a waiter woken by the same batch then finds it in `observations(device:)`.
        let log = InMemoryObservationLog()
        let waiters = ObservationWaiters(log: log)
        let runtime: PushlabRuntime
        do {
            runtime = try await PushlabRuntime.start(
                cores, configuration: RuntimeConfiguration(
                    server: configuration(certificates), delivery: delivery,
                    // A node's control API is where the others send requests about its phones.
                    control: membership == nil ? nil : .init(host: loopback, port: 0)
                ),
                sinks: [log, waiters], logger: logger
            )
        } catch {
            await membership?.engine.close()
            throw PushlabTestingError("Pushlab cannot listen on \(loopback): \(error)")
        }
        if let membership { try await ClusterNode.start(membership, runtime: runtime) }
        return PushlabTestServer(certificates: certificates, signingKey: signingKey, runtime: runtime, membership: membership, log: log, waiters: waiters)
    }

    private init(
        certificates: TLSCertificates, signingKey: ProviderSigningKey, runtime: PushlabRuntime, membership: ClusterMembership?,
        log: InMemoryObservationLog, waiters: ObservationWaiters
    ) {
        let port = { (environment: APNsEnvironment) in runtime.listeners.first { $0.environment == environment }?.port ?? 0 }
        host = Self.loopback
        developmentPort = port(.development)
        productionPort = port(.production)
        // `localhost`, not the address: the server certificate names both, and clients that
        // check host names (APNSwift, AsyncHTTPClient) send it as SNI.
        developmentURL = URL(string: "https://localhost:\(developmentPort)")!
        productionURL = URL(string: "https://localhost:\(productionPort)")!
        self.certificates = certificates
        self.signingKey = signingKey
        let cores = runtime.cores
        world = cores.world
        simulator = cores.simulator
        clock = PushlabTestClock(simulator: cores.simulator)
        faults = cores.faults
        requests = cores.service.log
        apns = cores.service
        observationLog = log
        self.waiters = waiters
        self.runtime = runtime
        self.membership = membership
    }

    /// The URL of an environment's listener.
    public func url(for environment: APNsEnvironment) -> URL {
        environment == .development ? developmentURL : productionURL
    }

    /// A provider token from `signingKey`, issued at the server clock's now. Mint a new one
    /// after moving the clock more than an hour (APNs answers `ExpiredProviderToken`), but not
    /// within 20 minutes of the last on one connection (`TooManyProviderTokenUpdates`).
    public func providerToken() throws(PushlabTestingError) -> String {
        try signingKey.providerToken(issuedAt: clock.now)
    }

    /// Graceful shutdown, as APNs does it: GOAWAY `Shutdown`, in-flight streams finish, the
    /// connections close. Calling it again does nothing.
    public func stop() async {
        // A node's phones go to the other nodes first.
        await membership?.stop(runtime)
        // Nothing is stored: there is no last batch to fail.
        try? await runtime.shutdown()
    }

    private static let loopback = "127.0.0.1"

    private static func configuration(_ certificates: TLSCertificates) -> ServerConfiguration {
        ServerConfiguration(
            listeners: [
                .init(host: loopback, port: 0, environment: .development),
                .init(host: loopback, port: 0, environment: .production),
            ],
            certificateChainFile: certificates.serverCertificateChain.path,
            privateKeyFile: certificates.serverPrivateKey.path,
            clientCertificateAuthoritiesFile: certificates.certificateAuthority.path,
            // One event loop: a test sends a few pushes, and suites run many servers side by side.
            threads: 1,
            // A test waits for its own shutdown; in-flight streams of a test finish in milliseconds.
            shutdownGracePeriod: .seconds(1)
        )
    }

    /// Warnings and errors only: a passing test's output stays quiet.
    private static var logger: Logger {
        var logger = Logger(label: "pushlab.testing")
        logger.logLevel = .warning
        return logger
    }
}

/// Runs `body` with a started server and stops it afterwards, also when `body` throws.
public func withPushlabTestServer<Value: Sendable>(
    scenario: String? = nil,
    policy: APNsPolicy = APNsPolicy(),
    simulatorSettings: SimulatorSettings? = nil,
    clockStart: Date? = nil,
    certificates: TLSCertificates = .bundled,
    signingKey: ProviderSigningKey? = nil,
    delivery: RuntimeConfiguration.Delivery = .queued(),
    cluster: PushlabTestServer.ClusterNode? = nil,
    _ body: (PushlabTestServer) async throws -> Value
) async throws -> Value {
    let server = try await PushlabTestServer.start(
        scenario: scenario, policy: policy, simulatorSettings: simulatorSettings, clockStart: clockStart,
        certificates: certificates, signingKey: signingKey, delivery: delivery, cluster: cluster
    )
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
