import PushlabCore
import PushlabSimulator
import PushlabStore

/// One run of Pushlab without sockets: a world, a simulator on a manual clock, a request log,
/// and the APNs provider API in front of them, reached with a client certificate per topic.
/// A second `TestPushlab` is the next run of the process: fresh world, fresh log.
final class TestPushlab {
    static let app = "com.example.app"
    static let news = "com.example.news"
    static let unknownToken = String(repeating: "ab", count: 32)

    let clock = ManualClock()
    let world = APNsWorld()
    let requestLog = RequestLog()
    let simulator: DeviceSimulator
    let service: APNsProviderService
    private var nextConnectionID: UInt64 = 1

    init() {
        simulator = DeviceSimulator(world: world, clock: clock)
        service = APNsProviderService(world: world, clock: clock, log: requestLog, sink: simulator)
    }

    /// A store recording this run, as the runtime connects one. Without a `crashWindow`, one long
    /// enough that the writer keeps to `flushInterval`: a test with a long interval writes when
    /// it flushes, and a request must not wake the writer to keep the usual 250 ms.
    func recordingStore(
        path: String, flushInterval: Duration = .milliseconds(100), largeBatchSize: Int = 50_000, backlogLimit: Int = 2_000_000,
        busyRate: Int? = 10_000, longestHold: Duration = .seconds(10), historyLimit: Int? = nil, crashWindow: Duration? = nil
    ) throws(StoreError) -> PushlabStore {
        let store = try PushlabStore(
            path: path, devices: simulator, flushInterval: flushInterval, largeBatchSize: largeBatchSize, backlogLimit: backlogLimit,
            busyRate: busyRate, longestHold: longestHold, historyLimit: historyLimit,
            crashWindow: crashWindow ?? max(.milliseconds(250), flushInterval * 3)
        )
        _ = store.connect(observations: simulator, requests: requestLog)
        return store
    }

    @discardableResult
    func addPhone(_ id: String, apps: [String] = [TestPushlab.app]) throws -> SimulatedDevice {
        try simulator.addDevice(SimulatedDevice(id: id, apps: apps.map { AppInstall(bundleID: $0, deviceToken: "") }))
    }

    func token(_ deviceID: String, _ bundleID: String = TestPushlab.app) -> String {
        simulator.device(deviceID)?.app(bundleID)?.deviceToken ?? ""
    }

    /// Sends one push through APNs's rules on a new connection; the simulator gets what is accepted.
    @discardableResult
    func push(
        to token: String, topic: String = TestPushlab.app, type: String = "alert", priority: Int = 10, collapseID: String? = nil,
        payload: String = #"{"aps":{"alert":{"title":"Goal","body":"1-0"},"badge":3,"sound":"default"},"match":42}"#
    ) -> APNsResponse? {
        let connection = service.makeConnectionHandler(for: ConnectionInfo(
            id: nextConnectionID, listenerEnvironment: .development, clientCertificate: certificate(for: topic)
        ))
        nextConnectionID += 1
        _ = connection.connectionDidStart()
        let request = APNsRequest(
            path: "/3/device/\(token)",
            headers: [("apns-topic", topic), ("apns-push-type", type), ("apns-priority", String(priority))]
                + (collapseID.map { [("apns-collapse-id", $0)] } ?? []),
            body: Array(payload.utf8)
        )
        let response = connection.handle(request).response
        connection.flushRecords()
        return response
    }

    /// A trusted development certificate whose UID is the topic: all APNs needs for certificate auth.
    private func certificate(for topic: String) -> ClientCertificate {
        let now = clock.now() / 1000
        return ClientCertificate(
            subject: "UID=\(topic),CN=Apple Push Services: \(topic)", userIDs: [topic],
            extensions: ["1.2.840.113635.100.6.3.1": [0x05, 0x00]],
            notBefore: now - 86_400, notAfter: now + 365 * 86_400, isTrusted: true, verificationError: nil
        )
    }
}

extension Observation {
    /// A hand-made observation, for tests that only need something to write.
    static func badge(_ sequence: Int64, device: String = "phone", app: String = TestPushlab.app) -> Observation {
        Observation(sequence: sequence, time: 1_767_225_600_000 + sequence, deviceID: device, bundleID: app, notificationID: nil, event: .badge(Int(sequence)))
    }
}
