import PushlabCore
import Synchronization

/// An APNs service that records what it saw and answers with a rule the test sets.
final class RecordingService: APNsConnectionFactory {
    private let state = Mutex<(connections: [ConnectionInfo], requests: [APNsRequest], journal: [String])>(([], [], []))
    let initialMaxConcurrentStreams: UInt32
    let startActions: [ConnectionAction]
    /// When set, the transport ticks every `tickInterval` ms and gets these actions on each tick.
    let tickInterval: Int64?
    let tickActions: [ConnectionAction]
    let answer: @Sendable (APNsRequest) -> APNsOutcome
    /// What every connection's handler says of its sink (`intakeIsBackedUp`).
    let intakeBackedUp = Atomic<Bool>(false)

    init(
        initialMaxConcurrentStreams: UInt32 = 1000,
        startActions: [ConnectionAction] = [],
        tickInterval: Int64? = nil, tickActions: [ConnectionAction] = [],
        answer: @escaping @Sendable (APNsRequest) -> APNsOutcome = RecordingService.acceptEverything
    ) {
        self.initialMaxConcurrentStreams = initialMaxConcurrentStreams
        self.startActions = startActions
        self.tickInterval = tickInterval
        self.tickActions = tickActions
        self.answer = answer
    }

    /// 200 with the request's apns-id or a generated one.
    static let acceptEverything: @Sendable (APNsRequest) -> APNsOutcome = { request in
        var ids = APNsIDGenerator()
        return APNsOutcome(.success(apnsID: ids.echoOrGenerate(request.header("apns-id"))))
    }

    /// Answers every request with `reason`.
    static func rejecting(_ reason: APNsErrorReason) -> RecordingService {
        RecordingService { _ in APNsOutcome(.failure(reason, apnsID: "0F2B6A4D-1C55-4E0B-B2B6-92B5A8C33A19")) }
    }

    var connections: [ConnectionInfo] { state.withLock { $0.connections } }
    var requests: [APNsRequest] { state.withLock { $0.requests } }
    /// "handle <stream>" and "flush", in the order the transport called them.
    var journal: [String] { state.withLock { $0.journal } }

    func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler {
        state.withLock { $0.connections.append(connection) }
        return Handler(service: self)
    }

    private final class Handler: APNsConnectionHandler {
        let service: RecordingService
        init(service: RecordingService) { self.service = service }
        var initialMaxConcurrentStreams: UInt32 { service.initialMaxConcurrentStreams }
        func connectionDidStart() -> [ConnectionAction] { service.startActions }
        var tickIntervalMilliseconds: Int64? { service.tickInterval }
        func tick() -> [ConnectionAction] { service.tickActions }
        func handle(_ request: consuming APNsRequest) -> APNsOutcome {
            let received = copy request
            service.state.withLock {
                $0.requests.append(received)
                $0.journal.append("handle \(received.streamID)")
            }
            return service.answer(received)
        }
        func flushRecords() { service.state.withLock { $0.journal.append("flush") } }
        var intakeIsBackedUp: Bool { service.intakeBackedUp.load(ordering: .relaxed) }
    }
}
