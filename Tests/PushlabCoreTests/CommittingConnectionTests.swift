@testable import PushlabCore
import Synchronization
import Testing

/// `--durable` as a decorator: every answer of the rules waits for the commit of the records
/// published before it; answers the wrapped handler holds for a verdict of its own keep their
/// place and get that verdict.
struct CommittingConnectionTests {
    private static let id = "0F2B6A4D-1C55-4E0B-B2B6-92B5A8C33A19"

    /// Answers 200 (400 to a path with "bad"); holds a path with "held" for a verdict of its own.
    final class Rules: APNsConnectionFactory, APNsConnectionHandler, @unchecked Sendable {
        var asked: [(AnswerTicket, @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void)] = []
        var held = 0
        func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler { self }
        var initialMaxConcurrentStreams: UInt32 { 100 }

        func handle(_ request: consuming APNsRequest) -> APNsOutcome {
            if request.path?.contains("held") == true {
                held += 1
                return APNsOutcome(.success(apnsID: CommittingConnectionTests.id), isHeld: true)
            }
            if request.path?.contains("bad") == true {
                return APNsOutcome(.failure(.badDeviceToken, apnsID: CommittingConnectionTests.id), actions: [.goAway(.badDeviceToken)])
            }
            return APNsOutcome(.success(apnsID: CommittingConnectionTests.id), delayMilliseconds: 5)
        }

        func requestVerdicts(_ done: @escaping @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void) -> AnswerTicket? {
            guard held > 0 else { return nil }
            held = 0
            let ticket = AnswerTicket(UInt64(100 + asked.count))
            asked.append((ticket, done))
            return ticket
        }

        func finishHeldAnswers(_ ticket: AnswerTicket, verdicts: [AdmissionVerdict]) -> [APNsOutcome] {
            verdicts.map { $0 == .accepted ? APNsOutcome(.success(apnsID: CommittingConnectionTests.id)) : APNsOutcome(.failure(.tooManyRequests, apnsID: CommittingConnectionTests.id)) }
        }
    }

    final class Commits: RecordCommits {
        let waits = Mutex<[@Sendable (CommitTicket, Bool) -> Void]>([])
        func afterCommit(_ done: @escaping @Sendable (CommitTicket, Bool) -> Void) -> CommitTicket {
            waits.withLock { waits in
                waits.append(done)
                return CommitTicket(UInt64(waits.count))
            }
        }
        func finish(_ index: Int, committed: Bool) {
            let done = waits.withLock { $0[index] }
            done(CommitTicket(UInt64(index + 1)), committed)
        }
    }

    final class Verdicts: Sendable {
        let got = Mutex<[(AnswerTicket, [AdmissionVerdict])]>([])
        func done(_ ticket: AnswerTicket, _ verdicts: [AdmissionVerdict]) { got.withLock { $0.append((ticket, verdicts)) } }
    }

    private func connection(_ rules: Rules, _ commits: Commits) -> any APNsConnectionHandler {
        CommittingConnectionFactory(service: rules, commits: commits).makeConnectionHandler(for: ConnectionInfo(id: 1, listenerEnvironment: .development))
    }

    @Test func everyAnswerIsHeldAndKeepsItsDelayAndActionsProvisionally() {
        let handler = connection(Rules(), Commits())
        let ok = handler.handle(APNsRequest(path: "/3/device/a"))
        let bad = handler.handle(APNsRequest(path: "/3/device/bad"))
        #expect(ok.isHeld && ok.delayMilliseconds == 5 && ok.response?.status == 200)
        #expect(bad.isHeld && bad.actions == [.goAway(.badDeviceToken)] && bad.response?.status == 400)
    }

    @Test func aCommitReleasesTheAnswersAsDecidedAndAFailedOneAnswers500() {
        let commits = Commits()
        let handler = connection(Rules(), commits)
        let verdicts = Verdicts()
        _ = handler.handle(APNsRequest(path: "/3/device/a"))
        _ = handler.handle(APNsRequest(path: "/3/device/bad"))
        let first = try! #require(handler.requestVerdicts(verdicts.done))
        _ = handler.handle(APNsRequest(path: "/3/device/a"))
        let second = try! #require(handler.requestVerdicts(verdicts.done))
        #expect(handler.requestVerdicts(verdicts.done) == nil, "nothing held since")
        #expect(first != second)

        commits.finish(1, committed: false)
        commits.finish(0, committed: true)
        let got = verdicts.got.withLock { $0 }
        #expect(got.map(\.0) == [second, first])
        let released = handler.finishHeldAnswers(first, verdicts: got[1].1)
        #expect(released.map(\.response?.status) == [200, 400])
        #expect(released.allSatisfy { $0.actions.isEmpty && $0.delayMilliseconds == 0 }, "they stay with the provisional outcome")
        let failed = handler.finishHeldAnswers(second, verdicts: got[0].1)
        #expect(failed.map(\.response?.status) == [500])
        #expect(failed.first?.response?.reason == .internalServerError && failed.first?.response?.apnsIDValue == APNsID(Self.id))
        #expect(handler.finishHeldAnswers(first, verdicts: got[1].1).isEmpty, "a ticket is finished once")
    }

    @Test func answersTheWrappedHandlerHoldsGetItsVerdictsInTheirPlace() {
        let rules = Rules()
        let commits = Commits()
        let handler = connection(rules, commits)
        let verdicts = Verdicts()
        _ = handler.handle(APNsRequest(path: "/3/device/held"))
        _ = handler.handle(APNsRequest(path: "/3/device/bad"))
        _ = handler.handle(APNsRequest(path: "/3/device/held"))
        let ticket = try! #require(handler.requestVerdicts(verdicts.done))
        #expect(rules.asked.count == 1, "the wrapped handler is asked for its own")

        commits.finish(0, committed: true)
        #expect(verdicts.got.withLock { $0.isEmpty }, "both verdicts are waited for")
        rules.asked[0].1(rules.asked[0].0, [.tooManyRequests, .accepted])
        let got = verdicts.got.withLock { $0 }
        #expect(got.count == 1 && got[0].0 == ticket)
        #expect(handler.finishHeldAnswers(ticket, verdicts: got[0].1).map(\.response?.status) == [429, 400, 200])
    }
}
