import PushlabCore
import PushlabNGHTTP2
@testable import PushlabTransport
import Synchronization
import Testing

/// A sink that decides later (a cluster's engine): a 200 of the rules is held until its verdict,
/// which the rules turn into the final answer; other answers go at once, and the connection goes
/// on meanwhile.
@Suite("Held answers wait for their verdicts")
struct HeldAnswerTests {
    /// Answers a held 200 to every request (400 `BadDeviceToken` to a path with "bad" in it),
    /// and finishes each request for verdicts as the test says.
    final class AdmittingService: APNsConnectionFactory {
        private let state = Mutex<(awaiting: Int, requested: [(AnswerTicket, Int, @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void)], journal: [String])>((0, [], []))

        func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler { Handler(service: self) }

        var journal: [String] { state.withLock { $0.journal } }
        var requestedCounts: [Int] { state.withLock { $0.requested.map(\.1) } }

        /// The sink answers request for verdicts `index` with `verdicts`.
        func decide(_ index: Int, _ verdicts: [AdmissionVerdict]) {
            let (ticket, _, done) = state.withLock { $0.requested[index] }
            done(ticket, verdicts)
        }

        private final class Handler: APNsConnectionHandler {
            let service: AdmittingService
            private var ids = APNsIDGenerator()
            init(service: AdmittingService) { self.service = service }
            var initialMaxConcurrentStreams: UInt32 { 1000 }

            func handle(_ request: consuming APNsRequest) -> APNsOutcome {
                let id = ids.echoOrGenerate(request.header("apns-id"))
                if request.path?.contains("bad") == true { return APNsOutcome(.failure(.badDeviceToken, apnsID: id)) }
                service.state.withLock { $0.awaiting += 1 }
                // A latency profile's or a delay fault's delay, on a push the engine decides.
                let delay: Int64 = request.path?.contains("slow") == true ? 50 : 0
                return APNsOutcome(.success(apnsID: id), delayMilliseconds: delay, isHeld: true)
            }

            func flushRecords() { service.state.withLock { $0.journal.append("flush") } }

            func requestVerdicts(_ done: @escaping @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void) -> AnswerTicket? {
                service.state.withLock { state in
                    guard state.awaiting > 0 else { return nil }
                    let ticket = AnswerTicket(UInt64(state.requested.count + 1))
                    state.requested.append((ticket, state.awaiting, done))
                    state.awaiting = 0
                    state.journal.append("admit \(ticket.number)")
                    return ticket
                }
            }

            func finishHeldAnswers(_ ticket: AnswerTicket, verdicts: [AdmissionVerdict]) -> [APNsOutcome] {
                verdicts.map { verdict in
                    switch verdict {
                    case .accepted: APNsOutcome(.success(apnsID: "0F2B6A4D-1C55-4E0B-B2B6-92B5A8C33A19"))
                    // A counted fault rule that passed: the push now waits for its verdict.
                    case .checked:
                        {
                            service.state.withLock { $0.awaiting += 1 }
                            return APNsOutcome(.success(apnsID: "0F2B6A4D-1C55-4E0B-B2B6-92B5A8C33A19"), isHeld: true)
                        }()
                    case .tooManyRequests:
                        APNsOutcome(.failure(.tooManyRequests, apnsID: "0F2B6A4D-1C55-4E0B-B2B6-92B5A8C33A19"), actions: [.setMaxConcurrentStreams(1)])
                    default: APNsOutcome(.failure(.internalServerError, apnsID: "0F2B6A4D-1C55-4E0B-B2B6-92B5A8C33A19"))
                    }
                }
            }
        }
    }

    @Test func aReadsPushesGoToTheEngineTogetherAndTheirAnswersWaitForIt() throws {
        let service = AdmittingService()
        let connection = try EmbeddedConnection(service: service)
        let streams = try (0..<3).map { _ in try connection.request() }
        let refused = try connection.request(path: "/3/device/bad")
        try connection.exchange()

        #expect(connection.events.status(refused) == "400", "what the rules refuse is answered at once")
        #expect(streams.allSatisfy { connection.events.status($0) == nil }, "no 200 before the engine's verdict")
        #expect(service.requestedCounts == [3], "one request for the read's three pushes")
        let admitted = try #require(service.journal.firstIndex(of: "admit 1"))
        #expect(admitted > 0 && service.journal[admitted - 1] == "flush", "asked for once the read's records are published")

        service.decide(0, [.accepted, .tooManyRequests, .accepted])
        try connection.runEventLoopAndExchange()
        #expect(streams.map { connection.events.status($0) } == ["200", "429", "200"])
        #expect(streams.allSatisfy { connection.events.ended.contains($0) })
        #expect(connection.events.settings.contains { $0.contains(HTTP2Setting(.maxConcurrentStreams, 1)) }, "the verdict's actions are carried out")
    }

    @Test func eachReadWaitsForItsOwnVerdicts() throws {
        let service = AdmittingService()
        let connection = try EmbeddedConnection(service: service)
        let first = try connection.request()
        try connection.exchange()
        let second = try connection.request()
        try connection.exchange()
        #expect(service.requestedCounts == [1, 1])

        service.decide(1, [.accepted])
        try connection.runEventLoopAndExchange()
        #expect(connection.events.status(first) == nil && connection.events.status(second) == "200")
        service.decide(0, [.failed])
        try connection.runEventLoopAndExchange()
        #expect(connection.events.status(first) == "500")
    }

    /// The delay runs from the request, while the engine decides: the verdict is asked for in
    /// the request's own read, and the answer goes out once both the verdict and the delay are.
    @Test func aHeldAnswersDelayRunsWhileItsVerdictIsAwaited() throws {
        let service = AdmittingService()
        let connection = try EmbeddedConnection(service: service)
        let slow = try connection.request(path: "/3/device/slow")
        try connection.exchange()
        #expect(service.requestedCounts == [1], "asked for at once, not after the delay")

        connection.channel.embeddedEventLoop.advanceTime(by: .milliseconds(20))
        service.decide(0, [.accepted])
        try connection.runEventLoopAndExchange()
        #expect(connection.events.status(slow) == nil, "30 ms of the delay are left")
        connection.channel.embeddedEventLoop.advanceTime(by: .milliseconds(35))
        try connection.exchange()
        #expect(connection.events.status(slow) == "200")
    }

    /// A verdict can lead to another: the answer is held again, and its next verdict asked for.
    @Test func aFinalOutcomeThatIsHeldAgainWaitsForItsNextVerdict() throws {
        let service = AdmittingService()
        let connection = try EmbeddedConnection(service: service)
        let stream = try connection.request()
        try connection.exchange()
        service.decide(0, [.checked(.passes)])
        try connection.runEventLoopAndExchange()
        #expect(connection.events.status(stream) == nil, "held for its verdict now")
        #expect(service.requestedCounts == [1, 1], "the second verdict is asked for at once")
        service.decide(1, [.accepted])
        try connection.runEventLoopAndExchange()
        #expect(connection.events.status(stream) == "200")
    }
}
