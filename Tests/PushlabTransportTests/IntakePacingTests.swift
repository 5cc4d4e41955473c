import NIOCore
import NIOEmbedded
import PushlabCore
@testable import PushlabTransport
import Testing

/// While the APNs layer says its sink is backed up, the connection's reads wait in short pauses,
/// never longer than `IntakePacing.longestWait` of them in a row, and every request still gets its
/// answer.
@Suite struct IntakePacingTests {
    @Test func readsGoAheadAtOnceWhileTheSinkKeepsUp() throws {
        let (connection, reads) = try pacedConnection()
        connection.channel.read()
        connection.channel.read()
        #expect(reads.count == 2)
    }

    @Test func aBackedUpSinkDelaysEachReadByBoundedPauses() throws {
        let service = RecordingService()
        let (connection, reads) = try pacedConnection(service: service)
        service.intakeBackedUp.store(true, ordering: .relaxed)
        connection.channel.read()
        #expect(reads.count == 0)
        let loop = connection.channel.embeddedEventLoop
        loop.advanceTime(by: IntakePacing.pause * Int64(IntakePacing.longestWait - 1))
        #expect(reads.count == 0, "one pause short of the longest wait")
        loop.advanceTime(by: IntakePacing.pause)
        #expect(reads.count == 1, "a sink that stays backed up slows the reads but never stops them")

        connection.channel.read()
        connection.channel.read()
        loop.advanceTime(by: IntakePacing.pause)
        #expect(reads.count == 1, "a read asked for while one waits is the same read")
        service.intakeBackedUp.store(false, ordering: .relaxed)
        loop.advanceTime(by: IntakePacing.pause)
        #expect(reads.count == 2, "the sink caught up: the waiting read goes at its next look")
        connection.channel.read()
        #expect(reads.count == 3)
    }

    @Test func requestsOnAPacedConnectionAreAllAnswered() throws {
        let service = RecordingService()
        let (connection, _) = try pacedConnection(service: service)
        service.intakeBackedUp.store(true, ordering: .relaxed)
        let streams = try (0..<3).map { _ in try connection.request() }
        connection.channel.read()
        try connection.exchange()
        for stream in streams { #expect(connection.events.status(stream) == "200") }
        #expect(service.requests.count == 3)
    }

    @Test func thePacingStartsAgainAfterEachReadThatWentAhead() {
        var pacing = IntakePacing()
        var decisions: [Bool] = []
        for _ in 0...IntakePacing.longestWait { decisions.append(pacing.shouldPause(intakeBackedUp: true)) }
        #expect(decisions == Array(repeating: true, count: IntakePacing.longestWait) + [false], "the longest wait is over: the read goes")
        let next = pacing.shouldPause(intakeBackedUp: true)
        #expect(next, "the next read waits again")
        let caughtUp = pacing.shouldPause(intakeBackedUp: false)
        #expect(!caughtUp)
        #expect(pacing.pausesInARow == 0)
    }

    private func pacedConnection(service: RecordingService = RecordingService()) throws -> (EmbeddedConnection, ReadCounter) {
        let connection = try EmbeddedConnection(service: service)
        let reads = ReadCounter()
        try connection.channel.pipeline.syncOperations.addHandler(reads, position: .first)
        return (connection, reads)
    }
}

/// Counts the reads that reach the channel (it sits first, nearest the socket).
private final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    private(set) var count = 0

    func read(context: ChannelHandlerContext) {
        count += 1
        context.read()
    }
}
