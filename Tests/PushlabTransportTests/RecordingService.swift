import PushlabCore
import Synchronization

/// An APNs service that records what it saw and answers with a rule the test sets.
final class RecordingService: APNsService {
    private let state = Mutex<(connections: [ConnectionInfo], requests: [APNsRequest])>(([], []))
    let initialMaxConcurrentStreams: UInt32
    let startActions: [ConnectionAction]
    let answer: @Sendable (APNsRequest) -> APNsOutcome

    init(
        initialMaxConcurrentStreams: UInt32 = 1000,
        startActions: [ConnectionAction] = [],
        answer: @escaping @Sendable (APNsRequest) -> APNsOutcome = { APNsOutcome(.success(apnsID: APNsID.echoOrGenerate($0.header("apns-id")))) }
    ) {
        self.initialMaxConcurrentStreams = initialMaxConcurrentStreams
        self.startActions = startActions
        self.answer = answer
    }

    var connections: [ConnectionInfo] { state.withLock { $0.connections } }
    var requests: [APNsRequest] { state.withLock { $0.requests } }

    func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler {
        state.withLock { $0.connections.append(connection) }
        return Handler(service: self)
    }

    private final class Handler: APNsConnectionHandler {
        let service: RecordingService
        init(service: RecordingService) { self.service = service }
        var initialMaxConcurrentStreams: UInt32 { service.initialMaxConcurrentStreams }
        func connectionDidStart() -> [ConnectionAction] { service.startActions }
        func handle(_ request: APNsRequest) -> APNsOutcome {
            service.state.withLock { $0.requests.append(request) }
            return service.answer(request)
        }
    }
}
