import Logging
import NIOCore
import NIOEmbedded
import PushlabCore
import PushlabNGHTTP2
import PushlabTransport
import Testing

@Suite("APNs HTTP/2 handler, without sockets")
struct APNsHTTP2HandlerTests {
    @Test func initialSettingsAreApnsOwn() throws {
        let connection = try EmbeddedConnection(service: RecordingService())
        #expect(connection.events.settings.first == [
            HTTP2Setting(.headerTableSize, 4096), HTTP2Setting(.maxConcurrentStreams, 1000),
            HTTP2Setting(.initialWindowSize, 65535), HTTP2Setting(.maxFrameSize, 16384),
            HTTP2Setting(.maxHeaderListSize, 8000),
        ])
    }

    @Test func maxConcurrentStreamsComesFromTheConnectionHandler() throws {
        let connection = try EmbeddedConnection(service: RecordingService(initialMaxConcurrentStreams: 1))
        #expect(connection.client.remoteSetting(.maxConcurrentStreams) == 1)
    }

    @Test func successIsOneHeadersFrameWithAnUpperCaseApnsID() throws {
        let connection = try EmbeddedConnection(service: RecordingService())
        let stream = try connection.request()
        try connection.exchange()
        #expect(connection.events.status(stream) == "200")
        #expect(connection.events.ended.contains(stream))
        #expect(connection.events.dataFrameStreams.isEmpty)
        #expect(connection.events.header("content-type", stream) == nil)
        let apnsID = try #require(connection.events.header("apns-id", stream))
        #expect(apnsID.count == 36 && apnsID == apnsID.uppercased())
        #expect(connection.events.headers[stream]?.fields.map(\.name) == [":status", "apns-id"])
    }

    @Test func theAnswersOfOneReadArePublishedTogetherBeforeTheyAreWritten() throws {
        let service = RecordingService()
        let connection = try EmbeddedConnection(service: service)
        let streams = try (0..<3).map { _ in try connection.request() }
        try connection.exchange()
        let handled = service.journal.drop { $0 == "flush" }
        #expect(Array(handled.prefix(4)) == streams.map { "handle \($0)" } + ["flush"], "\(service.journal)")
        #expect(streams.allSatisfy { connection.events.status($0) == "200" })
    }

    @Test func aClosedConnectionFreesItsHandlerAndSession() throws {
        weak var handler: APNsHTTP2Handler?
        try {
            let channel = EmbeddedChannel()
            let settings = APNsHTTP2Handler.Settings(limits: HTTP2Limits(), listenerEnvironment: .development, connectionID: 1, logger: Logger(label: "test"))
            let strong = APNsHTTP2Handler(settings: settings, service: RecordingService(), startWithoutTLS: true)
            handler = strong
            try channel.pipeline.syncOperations.addHandler(strong)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
            #expect(try channel.readOutbound(as: ByteBuffer.self) != nil, "the session started and sent SETTINGS")
            _ = try channel.finish()
        }()
        #expect(handler == nil, "the session's delegate reference must not keep the handler alive")
    }

    @Test func requestApnsIDIsEchoed() throws {
        let connection = try EmbeddedConnection(service: RecordingService())
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let stream = try connection.request(headers: [("apns-id", id)])
        try connection.exchange()
        #expect(connection.events.header("apns-id", stream) == id)
    }

    @Test(arguments: [APNsErrorReason.methodNotAllowed, .badPath, .payloadEmpty, .badDeviceToken, .tooManyRequests, .internalServerError])
    func errorsAreHeadersThenOneJSONDataFrame(reason: APNsErrorReason) throws {
        let connection = try EmbeddedConnection(service: RecordingService.rejecting(reason))
        let stream = try connection.request()
        try connection.exchange()
        #expect(connection.events.status(stream) == String(reason.status))
        #expect(connection.events.header("content-type", stream) == "application/json")
        #expect(connection.events.header("apns-id", stream) == "0F2B6A4D-1C55-4E0B-B2B6-92B5A8C33A19")
        #expect(connection.events.body(stream) == #"{"reason":"\#(reason.rawValue)"}"#)
        #expect(connection.events.dataFrameStreams == [stream])
        #expect(connection.events.ended.contains(stream))
    }

    @Test func goneAnswersCarryAnIntegerTimestamp() throws {
        let service = RecordingService { _ in APNsOutcome(.failure(.unregistered, apnsID: "B7D2E0B4-5A5B-4C6F-9E1D-0F7A1C2B3D4E", timestamp: 1_700_000_000_123)) }
        let connection = try EmbeddedConnection(service: service)
        let stream = try connection.request()
        try connection.exchange()
        #expect(connection.events.status(stream) == "410")
        #expect(connection.events.body(stream) == #"{"reason":"Unregistered","timestamp":1700000000123}"#)
    }

    @Test func developmentUniqueIDIsSentWhenTheCoreGivesOne() throws {
        let service = RecordingService { _ in APNsOutcome(.success(apnsID: "A", uniqueID: "4084a6e4-0000-4000-8000-000000000000")) }
        let connection = try EmbeddedConnection(service: service)
        let stream = try connection.request()
        try connection.exchange()
        #expect(connection.events.header("apns-unique-id", stream) == "4084a6e4-0000-4000-8000-000000000000")
    }

    /// RFC 7541 6.2: the first answer adds each id name to the encoder's table (literal with
    /// incremental indexing, new name: 0x40); later answers name it by its table index and send
    /// the fresh value never indexed (0x1F then the index past 15), so the table never churns.
    @Test func laterAnswersNameTheIDHeadersFromTheTableAndNeverIndexTheirValues() throws {
        let service = RecordingService { request in
            APNsOutcome(.success(apnsID: "A", uniqueID: "4084a6e4-0000-4000-8000-00000000000\(request.streamID % 10)"))
        }
        let connection = try EmbeddedConnection(service: service)
        var streams: [Int32] = []
        for _ in 0..<3 {
            streams.append(try connection.request())
            try connection.exchange()
        }
        let blocks = try streams.map { try #require(connection.headerBlocks(on: $0).first) }
        // The first block announces the encoder's table size (6.3: 256 = 31 + 225, 0x3F 0xE1 0x01),
        // then :status 200 is static entry 8 (0x88), then apns-id, then apns-unique-id.
        #expect(Array(blocks[0].prefix(5)) == [0x3F, 0xE1, 0x01, 0x88, 0x40])
        // The table holds apns-unique-id (62) above apns-id (63).
        for block in blocks.dropFirst() {
            #expect(Array(block.prefix(3)) == [0x88, 0x1F, 63 - 15])
            #expect(block.count <= blocks[0].count - 3 - 15)
        }
        #expect(blocks[1].count == blocks[2].count)
        for stream in streams {
            #expect(connection.events.header("apns-id", stream) == "A")
            #expect(connection.events.header("apns-unique-id", stream) == "4084a6e4-0000-4000-8000-00000000000\(stream % 10)")
        }
    }

    @Test func theCoreSeesPseudoHeadersHeadersInOrderAndTheBody() throws {
        let service = RecordingService()
        let connection = try EmbeddedConnection(service: service)
        _ = try connection.request(headers: [("apns-topic", "com.pushlab.demo"), ("apns-topic", "again"), ("apns-push-type", "alert")])
        try connection.exchange()
        let request = try #require(service.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/3/device/" + String(repeating: "ab", count: 32))
        #expect(request.authority == "localhost")
        #expect(request.scheme == "https")
        #expect(request.headers.map(\.name) == ["apns-topic", "apns-topic", "apns-push-type"])
        #expect(request.occurrences(of: "apns-topic") == 2)
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"aps":{"alert":"hi"}}"#)
    }

    @Test func oversizedBodiesAreCountedButNotStored() throws {
        let service = RecordingService()
        var limits = HTTP2Limits()
        limits.maxBufferedBodyBytes = 1000
        let connection = try EmbeddedConnection(service: service, limits: limits)
        _ = try connection.request(body: String(repeating: "x", count: 200_000))
        try connection.exchange()
        let request = try #require(service.requests.first)
        #expect(request.bodyLength == 200_000)
        #expect(request.body.count == 1000)
    }

    @Test func headerListOverTheAnnouncedLimitIsRefusedAndTheConnectionLives() throws {
        let connection = try EmbeddedConnection(service: RecordingService())
        let big = try connection.request(headers: [("x-filler", String(repeating: "y", count: 9000))])
        try connection.exchange()
        #expect(connection.events.resets[big] == HTTP2ErrorCode.refusedStream.rawValue)
        let next = try connection.request()
        try connection.exchange()
        #expect(connection.events.status(next) == "200")
    }

    @Test func goAwayActionFollowsItsAnswerWithJSONDebugDataAndClosesWhenIdle() throws {
        let service = RecordingService { _ in APNsOutcome(.success(apnsID: "A"), actions: [.goAway(.idleTimeout)]) }
        let connection = try EmbeddedConnection(service: service)
        let stream = try connection.request()
        try connection.exchange()
        #expect(connection.events.status(stream) == "200")
        // Not in the answer's write: a client reading both at once may reuse the closing connection.
        #expect(connection.events.goAways.isEmpty)
        #expect(connection.channel.isActive)
        connection.channel.embeddedEventLoop.advanceTime(by: .milliseconds(50))
        try connection.exchange()
        let goAway = try #require(connection.events.goAways.first)
        #expect(goAway.debug == #"{"reason":"IdleTimeout"}"#)
        #expect(goAway.errorCode == 0)
        #expect(goAway.lastStreamID == stream)
        #expect(!connection.channel.isActive)
    }

    @Test func aClientThatKeepsSendingGetsTheGoAwayBeforeItsNextStreamIsHandled() throws {
        let service = RecordingService { _ in APNsOutcome(.failure(.badDeviceToken, apnsID: "A"), actions: [.goAway(.badDeviceToken)]) }
        let connection = try EmbeddedConnection(service: service)
        let last = try connection.request()
        try connection.exchange()
        #expect(connection.events.status(last) == "400")
        let next = try connection.request()
        try connection.exchange()
        let goAway = try #require(connection.events.goAways.first)
        #expect(goAway.debug == #"{"reason":"BadDeviceToken"}"#)
        #expect(goAway.lastStreamID == last)
        #expect(connection.events.status(next) == nil)
        #expect(service.requests.count == 1)
        #expect(!connection.channel.isActive)
    }

    @Test func startActionsRunBeforeAnyRequest() throws {
        let connection = try EmbeddedConnection(service: RecordingService(startActions: [.goAway(.badCertificateEnvironment)]))
        let goAway = try #require(connection.events.goAways.first)
        #expect(goAway.lastStreamID == 0)
        #expect(goAway.debug == #"{"reason":"BadCertificateEnvironment"}"#)
        #expect(!connection.channel.isActive)
    }

    @Test func maxConcurrentStreamsChangesOnALiveConnection() throws {
        let service = RecordingService { _ in APNsOutcome(.failure(.badDeviceToken, apnsID: "A"), actions: [.setMaxConcurrentStreams(1)]) }
        let connection = try EmbeddedConnection(service: service)
        _ = try connection.request()
        try connection.exchange()
        #expect(connection.client.remoteSetting(.maxConcurrentStreams) == 1)
        connection.registry.setMaxConcurrentStreams(500)
        connection.channel.embeddedEventLoop.run()
        try connection.exchange()
        #expect(connection.client.remoteSetting(.maxConcurrentStreams) == 500)
    }

    @Test func ticksDeliverTimeDrivenActionsSuchAsIdleTimeout() throws {
        let connection = try EmbeddedConnection(service: RecordingService(tickInterval: 1000, tickActions: [.goAway(.idleTimeout)]))
        connection.channel.embeddedEventLoop.advanceTime(by: .milliseconds(999))
        try connection.exchange()
        #expect(connection.events.goAways.isEmpty)
        connection.channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        try connection.exchange()
        #expect(connection.events.goAways.first?.debug == #"{"reason":"IdleTimeout"}"#)
        #expect(!connection.channel.isActive)
    }

    @Test func delayedAnswersWaitWhileOthersFlow() throws {
        let service = RecordingService { request in
            let slow = request.header("x-slow") != nil
            return APNsOutcome(.success(apnsID: slow ? "SLOW" : "FAST"), delayMilliseconds: slow ? 500 : 0)
        }
        let connection = try EmbeddedConnection(service: service)
        let slow = try connection.request(headers: [("x-slow", "1")])
        let fast = try connection.request()
        try connection.exchange()
        #expect(connection.events.header("apns-id", fast) == "FAST")
        #expect(connection.events.status(slow) == nil)
        connection.channel.embeddedEventLoop.advanceTime(by: .milliseconds(500))
        try connection.exchange()
        #expect(connection.events.header("apns-id", slow) == "SLOW")
    }

    @Test func anOutcomeWithoutAResponseResetsTheStream() throws {
        let connection = try EmbeddedConnection(service: RecordingService { _ in APNsOutcome(nil) })
        let stream = try connection.request()
        try connection.exchange()
        #expect(connection.events.resets[stream] == HTTP2ErrorCode.internalError.rawValue)
        #expect(connection.channel.isActive)
    }

    @Test func aCloseActionDropsTheConnectionWithoutGoAway() throws {
        let connection = try EmbeddedConnection(service: RecordingService { _ in APNsOutcome(nil, actions: [.close]) })
        _ = try connection.request()
        try connection.exchange()
        #expect(!connection.channel.isActive)
        #expect(connection.events.goAways.isEmpty)
    }

    @Test func pingIsAnswered() throws {
        let connection = try EmbeddedConnection(service: RecordingService())
        try connection.client.submitPing()
        try connection.exchange()
        #expect(connection.events.pingAcks == 1)
    }

    @Test func aSlowReaderPausesWritingAndReading() throws {
        let connection = try EmbeddedConnection(service: RecordingService())
        connection.channel.isWritable = false
        connection.channel.pipeline.fireChannelWritabilityChanged()
        let stream = try connection.request()
        try connection.exchange()
        #expect(connection.events.status(stream) == nil)
        connection.channel.isWritable = true
        connection.channel.pipeline.fireChannelWritabilityChanged()
        try connection.exchange()
        #expect(connection.events.status(stream) == "200")
    }

    @Test func garbageInsteadOfAPrefaceEndsTheConnection() throws {
        let channel = EmbeddedChannel()
        let settings = APNsHTTP2Handler.Settings(limits: HTTP2Limits(), listenerEnvironment: .production, connectionID: 1, logger: Logger(label: "test"))
        try channel.pipeline.syncOperations.addHandler(APNsHTTP2Handler(settings: settings, service: RecordingService(), startWithoutTLS: true))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        var garbage = channel.allocator.buffer(capacity: 64)
        garbage.writeString("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        try channel.writeInbound(garbage)
        #expect(!channel.isActive)
    }
}
