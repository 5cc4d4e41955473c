@testable import PushlabCore
import Testing

@Suite("Accepted payloads copied into shared chunks")
struct PayloadArenaTests {
    @Test func payloadsOfAConnectionShareAChunkAndKeepTheirBytes() {
        var arena = PayloadArena(firstChunk: 64, largestChunk: 256)
        var request = Array(#"{"aps":{"alert":"one"}}"#.utf8)
        let first = arena.copy(request)
        // The transport reuses the request's buffer for the next request.
        request.removeAll(keepingCapacity: true)
        request += Array(#"{"aps":{"badge":2}}"#.utf8)
        let second = arena.copy(request)
        #expect(first.array == Array(#"{"aps":{"alert":"one"}}"#.utf8))
        #expect(second.array == Array(#"{"aps":{"badge":2}}"#.utf8))
        #expect(first.sharesChunk(with: second))
    }

    @Test func aFullChunkIsFollowedByALargerOneAndABigPayloadGetsItsOwn() {
        var arena = PayloadArena(firstChunk: 16, largestChunk: 32)
        let payloads = (1...3).map { [UInt8](repeating: $0, count: 10) }
        let a = arena.copy(payloads[0])
        let b = arena.copy(payloads[1])  // 20 > 16: a new chunk of 32
        let c = arena.copy(payloads[2])  // fits beside b
        let big = arena.copy([UInt8](repeating: 7, count: 100))
        #expect(!a.sharesChunk(with: b) && b.sharesChunk(with: c))
        #expect(big.count == 100 && big.array.allSatisfy { $0 == 7 })
        #expect([a, b, c].map(\.array) == payloads)
    }

    /// One body pushed to many devices is kept once; a body that differs even in its last byte,
    /// or that comes back after another, is copied again.
    @Test func aRepeatedPayloadSharesTheLastCopy() {
        var arena = PayloadArena(firstChunk: 64, largestChunk: 64)
        let broadcast = Array(#"{"aps":{"alert":"sale"}}"#.utf8)
        var almost = broadcast
        almost[almost.count - 1] = UInt8(ascii: " ")
        let first = arena.copy(broadcast)
        let again = arena.copy(broadcast)
        let different = arena.copy(almost)
        let back = arena.copy(broadcast)
        #expect(first.isSameCopy(as: again))
        #expect(!different.isSameCopy(as: first) && !back.isSameCopy(as: first))
        #expect(first.array == broadcast && again.array == broadcast && different.array == almost && back.array == broadcast)
    }

    @Test func anEmptyPayloadIsEmpty() {
        var arena = PayloadArena()
        let empty = arena.copy([])
        #expect(empty.count == 0 && empty.array.isEmpty && empty == PayloadBytes())
        #expect(empty != PayloadBytes([0]))
    }

    @Test func anAcceptedPushStillOffersItsRawPayload() {
        let push = AcceptedPush(
            apnsID: APNsID("123e4567-e89b-12d3-a456-426614174000"), receivedAt: 0, environment: .development, deviceToken: "ab",
            registration: nil, topic: "com.example", bundleID: "com.example", pushType: .alert, priority: 10, expiration: nil,
            collapseID: nil, payload: nil, rawPayload: Array("{}".utf8), isDeliverable: true, connectionID: 1
        )
        #expect(push.rawPayload == Array("{}".utf8) && push.payloadBytes == PayloadBytes(Array("{}".utf8)))
    }
}
