import PushlabCore
import Testing

/// `POST /4/broadcasts/apps/<bundle>` (A12): the answer, the sink, the request log.
@Suite("Broadcast send")
struct BroadcastSendTests {
    @Test(arguments: AuthMode.allCases)
    func aBroadcastIsAnswered200WithTheRequestID(mode: AuthMode) throws {
        let harness = try Harness(mode)
        let channel = try harness.newChannel()
        let requestID = "5f0b6a2e-0d1c-4b7a-9e8f-1a2b3c4d5e6f"
        let response = try #require(harness.broadcast(channel: channel, headers: [("apns-request-id", requestID), ("apns-priority", "5")]).response)
        #expect(response.status == 200 && response.body == nil)
        #expect(response.idHeader == .requestID && response.apnsID == requestID)
        let accepted = try #require(harness.sink.acceptedBroadcasts.first)
        #expect(accepted.requestID.text == requestID)
        #expect(accepted.channelID == channel && accepted.bundleID == TestWorld.app && accepted.environment == .development)
        #expect(accepted.priority == 5 && accepted.expiration == nil && accepted.receivedAt == Harness.start)
        #expect(accepted.payload?["aps"]?["event"]?.stringValue == "update")
        #expect(accepted.payloadBytes.array == Array(Harness.liveActivityUpdate.utf8))
    }

    @Test func anApnsIDServesAsTheRequestID() throws {
        let harness = try Harness()
        let channel = try harness.newChannel()
        let id = "5f0b6a2e-0d1c-4b7a-9e8f-1a2b3c4d5e6f"
        #expect(harness.broadcast(channel: channel, headers: [("apns-id", id)]).response?.apnsID == id)
    }

    @Test func theSinkGetsTheBroadcastAtTheFlushNotDuringTheRequest() throws {
        let harness = try Harness()
        let channel = try harness.newChannel()
        let request = APNsRequest(
            method: "POST", path: "/4/broadcasts/apps/\(TestWorld.app)",
            headers: [("authorization", "bearer \(harness.providerToken)"), ("apns-push-type", "liveactivity"), ("apns-channel-id", channel)],
            body: Array(Harness.liveActivityUpdate.utf8)
        )
        #expect(harness.connection.handle(request).response?.status == 200)
        #expect(harness.sink.acceptedBroadcasts.isEmpty)
        #expect(harness.log.entries().count == 1)
        harness.connection.flushRecords()
        #expect(harness.sink.acceptedBroadcasts.count == 1)
        #expect(harness.log.entries().count == 2)
    }

    @Test func applesSpellingsOfThePushTypeAreAccepted() throws {
        let harness = try Harness()
        let channel = try harness.newChannel()
        for spelling in ["liveactivity", "LiveActivity", "Liveactivity"] {
            #expect(harness.broadcast(channel: channel, pushType: spelling).response?.status == 200, "\(spelling)")
        }
    }

    @Test func prioritiesOneFiveAndTenAreAccepted() throws {
        let harness = try Harness()
        let channel = try harness.newChannel()
        for priority in ["1", "5", "10"] {
            #expect(harness.broadcast(channel: channel, headers: [("apns-priority", priority)]).response?.status == 200, "priority \(priority)")
        }
        #expect(harness.sink.acceptedBroadcasts.map(\.priority) == [1, 5, 10])
    }

    @Test func aStoringChannelTakesAnyExpirationANonStoringOneOnlyZero() throws {
        let harness = try Harness()
        let storing = try harness.newChannel()
        let nonStoring = try harness.newChannel(configuration: Harness.noStorageConfiguration)
        #expect(harness.broadcast(channel: storing, headers: [("apns-expiration", "1767229200")]).response?.status == 200)
        #expect(harness.broadcast(channel: nonStoring, headers: [("apns-expiration", "0")]).response?.status == 200)
        #expect(harness.broadcast(channel: nonStoring).response?.status == 200)
        #expect(harness.reason(harness.broadcast(channel: nonStoring, headers: [("apns-expiration", "1767229200")])) == .badExpirationDate)
        #expect(harness.sink.acceptedBroadcasts.map(\.expiration) == [1_767_229_200, 0, nil])
    }

    @Test func theBroadcastLimitIs5120Bytes() throws {
        let harness = try Harness()
        let channel = try harness.newChannel()
        func payload(_ size: Int) -> String {
            let frame = #"{"aps":{"event":"update","content-state":{"pad":""}}}"#
            return #"{"aps":{"event":"update","content-state":{"pad":""# + String(repeating: "x", count: size - frame.utf8.count) + #""}}}"#
        }
        #expect(harness.broadcast(channel: channel, body: payload(5120)).response?.status == 200)
        #expect(harness.reason(harness.broadcast(channel: channel, body: payload(5121))) == .payloadTooLarge)
        var policy = APNsPolicy()
        policy.broadcastPayloadLimit = 100
        let strict = try Harness(policy: policy)
        let strictChannel = try strict.newChannel()
        #expect(strict.reason(strict.broadcast(channel: strictChannel, body: payload(101))) == .payloadTooLarge)
    }

    @Test func theRequestLogTellsABroadcastApart() throws {
        let harness = try Harness()
        let channel = try harness.newChannel()
        harness.broadcast(channel: channel, pushType: "LiveActivity")
        let entry = try #require(harness.log.entries().first)
        #expect(entry.topic == TestWorld.app && entry.pushType == "liveactivity" && entry.channelID == channel)
        #expect(entry.deviceToken == nil && entry.status == 200)
        harness.broadcast(channel: channel, pushType: "alert")
        let refused = try #require(harness.log.entries().first)
        #expect(refused.pushType == "alert" && refused.reason == .invalidPushType && refused.channelID == channel)
    }

    @Test func devicePushesAreUntouchedByTheBroadcastRoute() throws {
        let harness = try Harness()
        #expect(harness.send().response?.status == 200)
        #expect(harness.send().response?.idHeader == .apnsID)
        #expect(harness.sink.accepted.count == 2 && harness.sink.acceptedBroadcasts.isEmpty)
    }
}
