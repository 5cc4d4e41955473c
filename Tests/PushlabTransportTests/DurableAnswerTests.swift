import PushlabCore
import PushlabNGHTTP2
@testable import PushlabTransport
import Synchronization
import Testing

/// `pushlab serve --durable`: an answer goes out only once the records published before it are
/// committed; a failed commit answers 500 `InternalServerError` instead.
@Suite("Durable answers wait for their commit")
struct DurableAnswerTests {
    /// Commits that the test finishes by hand, each wait with the next ticket; remembers what
    /// the service had seen when each wait was asked for.
    final class ManualCommits: RecordCommits {
        private let waits = Mutex<[(ticket: CommitTicket, done: @Sendable (CommitTicket, Bool) -> Void, journal: [String])]>([])
        let service: RecordingService

        init(service: RecordingService) { self.service = service }

        func afterCommit(_ done: @escaping @Sendable (CommitTicket, Bool) -> Void) -> CommitTicket {
            let journal = service.journal
            return waits.withLock { waits in
                let ticket = CommitTicket(UInt64(waits.count + 1))
                waits.append((ticket, done, journal))
                return ticket
            }
        }

        var count: Int { waits.withLock { $0.count } }
        /// The service's journal when wait `index` was asked for.
        func journal(at index: Int) -> [String] { waits.withLock { $0[index].journal } }

        func finish(_ index: Int, committed: Bool) {
            let wait = waits.withLock { $0[index] }
            wait.done(wait.ticket, committed)
        }
    }

    @Test func theAnswersOfAReadWaitForTheCommitOfItsRecords() throws {
        let service = RecordingService()
        let commits = ManualCommits(service: service)
        let connection = try EmbeddedConnection(service: service, commits: commits)
        let streams = try (0..<3).map { _ in try connection.request() }
        try connection.exchange()

        #expect(streams.allSatisfy { connection.events.status($0) == nil }, "nothing is answered before the commit")
        #expect(commits.count == 1, "one commit for the read")
        #expect(commits.journal(at: 0).last == "flush", "the commit is asked for once the read's records are published")

        commits.finish(0, committed: true)
        try connection.runEventLoopAndExchange()
        #expect(streams.allSatisfy { connection.events.status($0) == "200" && connection.events.ended.contains($0) })
    }

    @Test func eachReadWaitsForItsOwnCommit() throws {
        let service = RecordingService()
        let commits = ManualCommits(service: service)
        let connection = try EmbeddedConnection(service: service, commits: commits)
        let first = try connection.request()
        try connection.exchange()
        let second = try connection.request()
        try connection.exchange()
        #expect(commits.count == 2)

        commits.finish(1, committed: true)
        try connection.runEventLoopAndExchange()
        #expect(connection.events.status(first) == nil && connection.events.status(second) == "200")
        commits.finish(0, committed: true)
        try connection.runEventLoopAndExchange()
        #expect(connection.events.status(first) == "200")
    }

    @Test func aFailedCommitAnswersInternalServerErrorWithTheSameID() throws {
        let service = RecordingService()
        let commits = ManualCommits(service: service)
        let connection = try EmbeddedConnection(service: service, commits: commits)
        let id = "123E4567-E89B-12D3-A456-426614174000"
        let stream = try connection.request(headers: [("apns-id", id)])
        try connection.exchange()

        commits.finish(0, committed: false)
        try connection.runEventLoopAndExchange()
        #expect(connection.events.status(stream) == "500")
        #expect(connection.events.header("apns-id", stream) == id)
        #expect(connection.events.body(stream) == #"{"reason":"InternalServerError"}"#)
    }

    /// A GOAWAY that came with an answer goes after it, once it is committed.
    @Test func anAnswersConnectionActionsWaitWithIt() throws {
        let service = RecordingService { _ in
            APNsOutcome(.failure(.badDeviceToken, apnsID: "0F2B6A4D-1C55-4E0B-B2B6-92B5A8C33A19"), actions: [.goAway(.badDeviceToken)])
        }
        let commits = ManualCommits(service: service)
        let connection = try EmbeddedConnection(service: service, commits: commits)
        let stream = try connection.request()
        try connection.exchange()
        #expect(connection.events.goAways.isEmpty)

        commits.finish(0, committed: true)
        try connection.runEventLoopAndExchange()
        #expect(connection.events.status(stream) == "400")
        connection.channel.embeddedEventLoop.advanceTime(by: .milliseconds(60))
        try connection.exchange()
        #expect(connection.events.goAways.map(\.debug) == [#"{"reason":"BadDeviceToken"}"#])
    }

    @Test func withoutCommitsAnswersGoAtOnce() throws {
        let connection = try EmbeddedConnection(service: RecordingService())
        let stream = try connection.request()
        try connection.exchange()
        #expect(connection.events.status(stream) == "200")
    }
}

@Suite struct HeldAnswersTests {
    private let ok = APNsOutcome(.success(apnsID: "0F2B6A4D-1C55-4E0B-B2B6-92B5A8C33A19"))

    @Test func answersAreStampedOncePublishedAndReleasedByTheirTicket() {
        var held = HeldAnswers()
        held.hold(ok, on: 1, isHead: false)
        held.hold(ok, on: 3, isHead: false)
        #expect(held.hasUnticketed)
        held.stamp(AnswerTicket(1))
        held.hold(ok, on: 5, isHead: true)
        held.stamp(AnswerTicket(2))
        #expect(!held.hasUnticketed)

        #expect(held.release(AnswerTicket(2)).map(\.streamID) == [5])
        #expect(held.release(AnswerTicket(2)).isEmpty, "a ticket releases once")
        #expect(held.release(AnswerTicket(1)).map(\.streamID) == [1, 3])
        #expect(held.answers.isEmpty)
    }

    @Test func aStampLeavesTheAnswersOfEarlierTicketsAlone() {
        var held = HeldAnswers()
        held.hold(ok, on: 1, isHead: false)
        held.stamp(AnswerTicket(4))
        held.hold(ok, on: 3, isHead: false)
        held.stamp(AnswerTicket(5))
        #expect(held.release(AnswerTicket(5)).map(\.streamID) == [3])
        #expect(held.release(AnswerTicket(4)).map(\.streamID) == [1])
    }
}
