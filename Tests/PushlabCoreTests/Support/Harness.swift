import PushlabCore
import Synchronization
import Testing

enum AuthMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case token, certificate
    var testDescription: String { rawValue }
}

final class RecordingSink: PushSink {
    private let pushes = Mutex<[AcceptedPush]>([])
    private let broadcasts = Mutex<[AcceptedBroadcast]>([])
    var accepted: [AcceptedPush] { pushes.withLock { $0 } }
    var acceptedBroadcasts: [AcceptedBroadcast] { broadcasts.withLock { $0 } }
    func accept(_ push: AcceptedPush) { pushes.withLock { $0.append(push) } }
    func accept(broadcast: AcceptedBroadcast) { broadcasts.withLock { $0.append(broadcast) } }
}

/// One provider connection to an `APNsProviderService` with a manual clock. Token mode sends
/// a valid provider token unless told otherwise; certificate mode connects with an Apple-shaped
/// certificate for `com.example.app` (app, voip and complication topics, both environments).
final class Harness {
    static let start: EpochMilliseconds = 1_767_225_600_000  // 2026-01-01T00:00:00Z

    let world: TestWorld
    let clock = ManualClock(Harness.start)
    let log = RequestLog(capacity: 50)
    let sink = RecordingSink()
    let service: APNsProviderService
    let mode: AuthMode
    private(set) var connection: any APNsConnectionHandler
    private(set) var startActions: [ConnectionAction]
    /// The provider token sent in token mode.
    var providerToken: String

    init(
        _ mode: AuthMode = .token, policy: APNsPolicy = APNsPolicy(), environment: APNsEnvironment = .development,
        certificate: ClientCertificate? = nil, faults: (any FaultInjector)? = nil, world: TestWorld? = nil,
        decidingSink: (any PushSink)? = nil, report: ProviderReportRecorder? = nil
    ) throws {
        self.world = try world ?? TestWorld()
        self.mode = mode
        service = APNsProviderService(
            world: self.world.world, policy: policy, clock: clock, log: log, sink: decidingSink ?? sink, faults: faults, report: report
        )
        providerToken = try self.world.token(issuedAt: Harness.start / 1000)
        let info = ConnectionInfo(
            id: 1, listenerEnvironment: environment,
            clientCertificate: mode == .certificate ? (certificate ?? Harness.certificate()) : nil
        )
        connection = service.makeConnectionHandler(for: info)
        startActions = connection.connectionDidStart()
    }

    /// A fresh connection to the same service (state per connection starts over).
    func reconnect(
        environment: APNsEnvironment = .development, role: APNsListenerRole = .both, certificate: ClientCertificate? = nil, id: UInt64 = 2
    ) {
        let info = ConnectionInfo(
            id: id, listenerEnvironment: environment, listenerRole: role,
            clientCertificate: mode == .certificate ? (certificate ?? Harness.certificate()) : nil
        )
        connection = service.makeConnectionHandler(for: info)
        startActions = connection.connectionDidStart()
    }

    @discardableResult
    func send(
        token: String = TestWorld.devToken, topic: String? = TestWorld.app, headers: [(String, String)] = [],
        body: String? = #"{"aps":{"alert":"hi"}}"#, method: String = "POST", path: String? = nil,
        authorization: String? = nil, omitAuthorization: Bool = false, authority: String? = nil,
        answeredAfterNanoseconds: UInt64? = 0
    ) -> APNsOutcome {
        var fields: [(name: String, value: String)] = []
        if let topic { fields.append(("apns-topic", topic)) }
        if mode == .token, !omitAuthorization { fields.append(("authorization", authorization ?? "bearer \(providerToken)")) }
        fields += headers.map { (name: $0.0, value: $0.1) }
        let bytes = body.map { Array($0.utf8) } ?? []
        let request = APNsRequest(method: method, path: path ?? "/3/device/\(token)", authority: authority, headers: fields, body: bytes)
        // As the transport does: every request arrives in a read.
        connection.peerWasActive()
        let outcome = connection.handle(request)
        // As the transport does for an answer it writes at once (nil: the answer is still out).
        if let answeredAfterNanoseconds, outcome.response != nil, connection.timesAnswers {
            connection.answerWasSent(afterNanoseconds: answeredAfterNanoseconds)
        }
        connection.flushRecords()
        return outcome
    }

    /// The reason of an answer, or nil for 200.
    func reason(_ outcome: APNsOutcome) -> APNsErrorReason? { outcome.response?.reason }

    static func certificate(
        uid: String = TestWorld.app,
        topics: [(String, String)]? = [(TestWorld.app, "app"), (TestWorld.app + ".voip", "voip"), (TestWorld.app + ".complication", "complication")],
        environments: Set<APNsEnvironment> = [.development, .production],
        trusted: Bool = true, notAfter: EpochMilliseconds = start + 365 * 86_400_000
    ) -> ClientCertificate {
        var extensions: [String: [UInt8]] = [:]
        if let topics { extensions["1.2.840.113635.100.6.3.6"] = DER.topicList(topics) }
        if environments.contains(.development) { extensions["1.2.840.113635.100.6.3.1"] = [0x05, 0x00] }
        if environments.contains(.production) { extensions["1.2.840.113635.100.6.3.2"] = [0x05, 0x00] }
        return ClientCertificate(
            subject: "UID=\(uid),CN=Apple Push Services: \(uid),OU=\(TestWorld.team),C=US", userIDs: [uid],
            extensions: extensions, notBefore: (start - 86_400_000) / 1000, notAfter: notAfter / 1000,
            isTrusted: trusted, verificationError: trusted ? nil : "unable to get local issuer certificate"
        )
    }
}

/// Builds Apple's topic-list extension value.
enum DER {
    static func topicList(_ topics: [(String, String)]) -> [UInt8] {
        var content: [UInt8] = []
        for (topic, type) in topics {
            content += element(0x0C, Array(topic.utf8))
            content += element(0x30, element(0x0C, Array(type.utf8)))
        }
        return element(0x30, content)
    }

    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        if content.count < 0x80 { return [tag, UInt8(content.count)] + content }
        if content.count < 0x100 { return [tag, 0x81, UInt8(content.count)] + content }
        return [tag, 0x82, UInt8(content.count >> 8), UInt8(content.count & 0xFF)] + content
    }
}
