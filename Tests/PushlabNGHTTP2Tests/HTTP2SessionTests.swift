import Testing
import PushlabNGHTTP2

@Suite("HTTP/2 sessions back to back")
struct HTTP2SessionTests {
    private func requestHeaders(_ path: String = "/3/device/abcd") -> HTTP2HeaderList {
        HTTP2HeaderList([(":method", "POST"), (":scheme", "https"), (":path", path), (":authority", "localhost")])
    }

    @Test func settingsAreAnnouncedAndAcknowledged() throws {
        let pair = try SessionPair()
        try pair.server.submitSettings([HTTP2Setting(.maxConcurrentStreams, 1000), HTTP2Setting(.maxHeaderListSize, 8000)])
        try pair.exchange()
        #expect(pair.clientEvents.settings.first == [HTTP2Setting(.maxConcurrentStreams, 1000), HTTP2Setting(.maxHeaderListSize, 8000)])
        #expect(pair.client.remoteSetting(.maxConcurrentStreams) == 1000)
        #expect(pair.server.localSetting(.maxConcurrentStreams) == 1000)
        #expect(pair.serverEvents.settingsAcks == 1)
    }

    @Test func requestAndBodilessResponse() throws {
        let pair = try SessionPair()
        pair.serverEvents.onEndOfStream = { session, streamID in
            try? session.submitResponse(streamID: streamID, headers: HTTP2HeaderList([(":status", "200"), ("apns-id", "X")]))
        }
        try pair.server.submitSettings([])
        let streamID = try pair.client.submitRequest(headers: requestHeaders(), body: Array(#"{"aps":{}}"#.utf8))
        try pair.exchange()
        #expect(pair.serverEvents.headers[streamID]?.value(of: ":path") == "/3/device/abcd")
        #expect(pair.serverEvents.data[streamID] == Array(#"{"aps":{}}"#.utf8))
        #expect(pair.clientEvents.headers[streamID]?.value(of: ":status") == "200")
        #expect(pair.clientEvents.data[streamID] == nil)
        #expect(pair.clientEvents.endedStreams == [streamID])
        #expect(pair.clientEvents.closedStreams[streamID] == 0)
    }

    @Test func responseBodyLargerThanOneFrameArrivesWhole() throws {
        let pair = try SessionPair()
        let body = (0..<40_000).map { UInt8($0 % 251) }
        pair.serverEvents.onEndOfStream = { session, streamID in
            try? session.submitResponse(streamID: streamID, headers: HTTP2HeaderList([(":status", "200")]), body: body)
        }
        try pair.server.submitSettings([])
        let streamID = try pair.client.submitRequest(headers: requestHeaders())
        try pair.exchange()
        let received = pair.clientEvents.data[streamID] ?? []
        #expect(received.count == body.count)
        #expect(received.elementsEqual(body))
    }

    @Test func pingIsAnsweredByTheLibrary() throws {
        let pair = try SessionPair()
        try pair.server.submitSettings([])
        try pair.client.submitPing()
        try pair.exchange()
        #expect(pair.clientEvents.pingAcks == 1)
    }

    @Test func goAwayCarriesDebugDataAndStopsTheSession() throws {
        let pair = try SessionPair()
        try pair.server.submitSettings([])
        try pair.server.submitGoAway(lastStreamID: 0, errorCode: .noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
        try pair.exchange()
        let goAway = try #require(pair.clientEvents.goAways.first)
        #expect(goAway.lastStreamID == 0 && goAway.errorCode == 0)
        #expect(String(decoding: goAway.debugData, as: UTF8.self) == #"{"reason":"Shutdown"}"#)
        #expect(!pair.server.isActive)
    }

    @Test func clientWaitsForAFreeStreamWhenTheLimitIsOne() throws {
        let pair = try SessionPair()
        try pair.server.submitSettings([HTTP2Setting(.maxConcurrentStreams, 1)])
        try pair.exchange()
        let first = try pair.client.submitRequest(headers: requestHeaders(), body: [1])
        let second = try pair.client.submitRequest(headers: requestHeaders(), body: [2])
        try pair.exchange()
        #expect(pair.serverEvents.endedStreams == [first])
        try pair.server.submitResponse(streamID: first, headers: HTTP2HeaderList([(":status", "200")]))
        try pair.exchange()
        #expect(pair.serverEvents.endedStreams == [first, second])
    }

    @Test func garbageInsteadOfPrefaceIsFatal() throws {
        let server = try HTTP2Session(role: .server)
        let garbage = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        #expect { try garbage.withUnsafeBytes { try server.receive($0) } } throws: { error in
            (error as? NGHTTP2Error)?.isFatal == true
        }
    }
}
