import PushlabCore
@testable import PushlabTransport
import Testing

/// The connection's HTTP/2 lifecycle without a channel: each event, and what it asks for.
@Suite struct ConnectionLifecycleTests {
    @Test func aGoAwayWaitsForItsAnswerToCloseThenForTheNextReadOrTheTimer() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.streamOpened()
        lifecycle.streamAnswered(1, goAways: [.goAway(.badDeviceToken)])
        let result1 = lifecycle.readArrived()
        #expect(result1.isEmpty, "the answer is not out yet")
        let result2 = lifecycle.streamClosed(1)
        #expect(result2 == .armGoAwayTimer)
        let result3 = lifecycle.readArrived()
        #expect(result3 == [.goAway(.badDeviceToken)], "the next read sends it first")
        let result4 = lifecycle.goAwayTimerFired()
        #expect(result4.isEmpty, "once")
    }

    @Test func theTimerIsArmedOnceForGoAwaysPendingTogether() {
        var lifecycle = ConnectionLifecycle()
        for id: Int32 in [1, 3] {
            lifecycle.streamOpened()
            lifecycle.streamAnswered(id, goAways: [.goAway(.shutdown)])
        }
        let result5 = lifecycle.streamClosed(1)
        #expect(result5 == .armGoAwayTimer)
        let result6 = lifecycle.streamClosed(3)
        #expect(result6 == .nothing, "the armed timer covers it")
        let result7 = lifecycle.goAwayTimerFired()
        #expect(result7 == [.goAway(.shutdown), .goAway(.shutdown)])
        lifecycle.streamOpened()
        lifecycle.streamAnswered(5, goAways: [.goAway(.idleTimeout)])
        let result8 = lifecycle.streamClosed(5)
        #expect(result8 == .armGoAwayTimer, "a fired timer is armed again")
    }

    @Test func anAnswerWithoutGoAwayAsksForNothing() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.streamOpened()
        lifecycle.streamAnswered(1, goAways: [])
        let result9 = lifecycle.streamClosed(1)
        #expect(result9 == .nothing)
        #expect(lifecycle.openStreams == 0)
    }

    @Test func aStreamPastTheLimitIsRefusedNamingTheLastAnswered() {
        var lifecycle = ConnectionLifecycle()
        for id: Int32 in [1, 3] { lifecycle.streamOpened(); lifecycle.streamAnswered(id, goAways: []) }
        lifecycle.streamOpened()   // 5, not answered yet
        let result10 = lifecycle.refuseStream(isNew: true, limit: 4)
        #expect(result10 == nil, "3 open, limit 4")
        lifecycle.streamOpened()
        let result11 = lifecycle.refuseStream(isNew: false, limit: 4)
        #expect(result11 == nil, "frames of known streams are not new streams")
        let result12 = lifecycle.refuseStream(isNew: true, limit: 4)
        #expect(result12 == 3)
        let result13 = lifecycle.sessionFailed()
        #expect(!result13, "our GOAWAY is queued: no PROTOCOL_ERROR one on top")
        #expect(lifecycle.closesAfterFlush(sessionActive: true))
    }

    @Test func aSessionErrorClosesAfterItsGoAway() {
        var lifecycle = ConnectionLifecycle()
        #expect(!lifecycle.closesAfterFlush(sessionActive: true))
        #expect(lifecycle.closesAfterFlush(sessionActive: false), "nghttp2 wants no more after a GOAWAY")
        let result14 = lifecycle.sessionFailed()
        #expect(result14, "submit PROTOCOL_ERROR")
        #expect(lifecycle.closesAfterFlush(sessionActive: true))
    }

    @Test func readsPauseWhileThePeerDoesNotReadAndTheHeldReadComesAfter() {
        var lifecycle = ConnectionLifecycle()
        let result15 = lifecycle.readRequested()
        #expect(result15)
        lifecycle.outputBlocked()
        let result16 = lifecycle.readRequested()
        #expect(!result16, "held")
        let result17 = lifecycle.readRequested()
        #expect(!result17, "still one held read")
        lifecycle.becameWritable()
        let result18 = lifecycle.takeHeldRead()
        #expect(result18)
        let result19 = lifecycle.takeHeldRead()
        #expect(!result19, "only once")
        let result20 = lifecycle.readRequested()
        #expect(result20)
    }

    @Test func aClosedConnectionForgetsWhatWaited() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.streamOpened()
        lifecycle.streamAnswered(1, goAways: [.goAway(.shutdown)])
        let result21 = lifecycle.streamClosed(1)
        #expect(result21 == .armGoAwayTimer)
        lifecycle.connectionClosed()
        let result22 = lifecycle.readArrived()
        #expect(result22.isEmpty)
    }

    @Test func emptyFramesInARowPastTheLimitEndTheConnection() {
        var lifecycle = ConnectionLifecycle()
        lifecycle.streamOpened()
        lifecycle.streamAnswered(1, goAways: [])
        for _ in 0..<3 {
            let tolerated = lifecycle.emptyFrameReceived(limit: 3)
            #expect(tolerated == nil)
        }
        lifecycle.payloadReceived()
        for _ in 0..<3 {
            let tolerated = lifecycle.emptyFrameReceived(limit: 3)
            #expect(tolerated == nil, "a frame with payload starts the count again")
        }
        let refused = lifecycle.emptyFrameReceived(limit: 3)
        #expect(refused == 1, "GOAWAY ENHANCE_YOUR_CALM naming the last stream answered")
        let protocolError = lifecycle.sessionFailed()
        #expect(!protocolError, "our GOAWAY is queued: no PROTOCOL_ERROR one on top")
    }
}
