import Foundation
import Hummingbird
import HummingbirdTesting
import PushlabControl
import PushlabCore
import PushlabOpenSSL
import PushlabScenario
import PushlabSimulator
import PushlabStore
import Synchronization
import Testing

/// One Pushlab without sockets for the APNs side: a world with one app, a simulator on the
/// serve clock (manual, from 2026-01-01), the APNs service with fault rules, and the control
/// API over them, with a reset to this starting point.
final class ControlHarness: Sendable {
    static let app = "com.example.app"
    static let team = "TEAM123456"
    /// 2026-01-01T00:00:00Z.
    static let start: EpochMilliseconds = 1_767_225_600_000
    /// The one scenario file the harness's `POST /v1/scenario` knows.
    static let emptyScenarioPath = "/scenarios/empty.yaml"

    struct ScenarioMissing: Error, CustomStringConvertible {
        let path: String
        var description: String { "Cannot read scenario \(path)" }
    }

    /// The device the world starts with.
    static let phone = "phone"

    let clock: ControlledClock
    let world: APNsWorld
    let simulator: DeviceSimulator
    let requestLog = RequestLog()
    let faults = FaultRules(seed: 7)
    let service: APNsProviderService
    let api: ControlAPI
    private let connections = Atomic<UInt64>(1)

    init(
        store: Bool = false, withReset: Bool = true, eventBufferSize: Int = 1024, clock: ControlledClock = ControlledClock(manualStart: ControlHarness.start),
        signers: [Scenario.Signer] = []
    ) throws {
        self.clock = clock
        world = APNsWorld(apps: [AppRecord(bundleID: Self.app, teamID: Self.team)])
        let simulator = DeviceSimulator(world: world, clock: clock, tokenSeed: 1)
        self.simulator = simulator
        let initialDevices = [SimulatedDevice(id: Self.phone, apps: [AppInstall(bundleID: Self.app, deviceToken: "", state: .background)])]
        try simulator.replaceAll(with: initialDevices)
        let service = APNsProviderService(
            world: world, clock: clock, log: requestLog, sink: simulator, faults: faults, report: ProviderReportRecorder()
        )
        self.service = service
        let pushlabStore = store ? try PushlabStore(path: ":memory:", devices: simulator) : nil
        _ = pushlabStore?.connect(observations: simulator, requests: requestLog)
        let world = world
        let reset: ControlAPI.Reset = { [clock] in
            clock.set(Self.start)
            world.replaceAll(keys: [], apps: [AppRecord(bundleID: Self.app, teamID: Self.team)], tokens: [])
            try simulator.replaceAll(with: initialDevices)
            service.policy = APNsPolicy()
        }
        // A stand-in for serve's loader: one file exists, and it has no devices.
        let load: ControlAPI.LoadScenario = { path in
            guard path == Self.emptyScenarioPath else { throw ScenarioMissing(path: path) }
            try simulator.replaceAll(with: [])
            return "empty"
        }
        api = ControlAPI(
            simulator: simulator, requestLog: requestLog, faults: faults, store: pushlabStore, scenarioName: "test",
            reset: withReset ? reset : nil,
            loadScenario: withReset ? load : nil,
            signers: { signers },
            eventBufferSize: eventBufferSize, service: service, services: ServiceHub(simulator: simulator)
        )
        _ = api.connect()
    }

    var application: some ApplicationProtocol {
        Application(router: api.router())
    }

    func token(_ deviceID: String = ControlHarness.phone, _ bundleID: String = ControlHarness.app) -> String {
        simulator.device(deviceID)?.app(bundleID)?.deviceToken ?? ""
    }

    /// One push through APNs's rules on a new connection (a client certificate for the topic).
    @discardableResult
    func push(
        to token: String, topic: String = ControlHarness.app, type: String = "alert", priority: Int = 10,
        payload: String = #"{"aps":{"alert":{"title":"Hello","body":"World"},"badge":3,"sound":"default"},"orderId":42}"#
    ) -> APNsOutcome {
        let connection = service.makeConnectionHandler(for: ConnectionInfo(
            id: connections.add(1, ordering: .relaxed).oldValue, listenerEnvironment: .development,
            clientCertificate: certificate(for: topic)
        ))
        _ = connection.connectionDidStart()
        defer { connection.flushRecords() }
        return connection.handle(APNsRequest(
            path: "/3/device/\(token)",
            headers: [("apns-topic", topic), ("apns-push-type", type), ("apns-priority", String(priority))],
            body: Array(payload.utf8)
        ))
    }

    /// A push authenticated with a provider token signed by `key`.
    func push(to token: String, signedBy key: ES256Key, keyID: String, teamID: String, topic: String = ControlHarness.app) throws -> APNsOutcome {
        let input = ProviderToken.signingInput(keyID: keyID, teamID: teamID, issuedAt: clock.now() / 1000)
        let jwt = ProviderToken.assemble(signingInput: input, signature: try key.sign(Array(input.utf8)))
        let connection = service.makeConnectionHandler(for: ConnectionInfo(
            id: connections.add(1, ordering: .relaxed).oldValue, listenerEnvironment: .development
        ))
        defer { connection.flushRecords() }
        return connection.handle(APNsRequest(
            path: "/3/device/\(token)",
            headers: [("authorization", "bearer \(jwt)"), ("apns-topic", topic), ("apns-push-type", "alert")],
            body: Array(#"{"aps":{"alert":"Hi"}}"#.utf8)
        ))
    }

    private func certificate(for topic: String) -> ClientCertificate {
        let now = clock.now() / 1000
        return ClientCertificate(
            subject: "UID=\(topic),CN=Apple Push Services: \(topic)", userIDs: [topic],
            extensions: ["1.2.840.113635.100.6.3.1": [0x05, 0x00]],
            notBefore: now - 86_400, notAfter: now + 365 * 86_400, isTrusted: true, verificationError: nil
        )
    }
}

/// An answer of the control API, its body parsed.
struct Answer {
    var status: Int
    var headers: HTTPFields
    var text: String
    var json: JSONValue

    /// `{"error": …}`'s message.
    var error: String? { json["error"]?.stringValue }

    subscript(key: String) -> JSONValue? { json[key] }
}

extension TestClientProtocol {
    /// Sends `body` (JSON text) and parses the answer; a non-JSON answer parses as null.
    func call(_ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil) async throws -> Answer {
        try await execute(uri: uri, method: method, body: body.map { ByteBuffer(string: $0) }) { response in
            let text = String(buffer: response.body)
            return Answer(status: Int(response.status.code), headers: response.headers, text: text, json: (try? JSONParser.parse(text)) ?? .null)
        }
    }
}

extension JSONValue {
    var array: [JSONValue] {
        if case .array(let values) = self { return values }
        return []
    }

    var int: Int? { integerValue.map { Int($0) } }

    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}

/// Every error answer is `{"error": "<message>"}` and nothing else.
func expectError(_ answer: Answer, _ status: Int, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(answer.status == status, "\(answer.text)", sourceLocation: sourceLocation)
    #expect(answer.json.objectKeys == ["error"], "\(answer.text)", sourceLocation: sourceLocation)
    #expect(answer.error?.contains(text) == true, "\(answer.text) should say \(text)", sourceLocation: sourceLocation)
}

/// The repository's sample key files (certs/).
enum SampleKey {
    static let keyID = "PUSHLAB001"
    static let teamID = "TEAMPUSHLB"

    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("certs")
    }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    static var publicPEM: String { get throws { try text("AuthKey_PUSHLAB001.pub.pem") } }
    static var privatePEM: String { get throws { try text("AuthKey_PUSHLAB001.p8") } }
}

/// JSON text for a string value (PEMs have newlines).
func jsonString(_ text: String) -> String {
    var writer = JSONWriter()
    writer.value(.string(text))
    return writer.text
}
