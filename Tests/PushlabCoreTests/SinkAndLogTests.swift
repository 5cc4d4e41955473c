@testable import PushlabCore
import Synchronization
import Testing

@Suite("Accepted pushes and the request log")
struct SinkAndLogTests {
    @Test func theSinkGetsEverythingTheDeviceSideNeeds() throws {
        let harness = try Harness(.token)
        harness.send(headers: [
            ("apns-push-type", "alert"), ("apns-priority", "5"), ("apns-expiration", "1767229200"),
            ("apns-collapse-id", "score"), ("apns-id", "123e4567-e89b-12d3-a456-426614174000"),
        ], body: #"{"aps":{"alert":{"title":"Goal","body":"1-0"},"badge":3},"match":42}"#)
        let push = try #require(harness.sink.accepted.first)
        #expect(push.apnsID == "123e4567-e89b-12d3-a456-426614174000")
        #expect(push.deviceToken == TestWorld.devToken && push.bundleID == TestWorld.app && push.topic == TestWorld.app)
        #expect(push.pushType == .alert && push.priority == 5 && push.expiration == 1_767_229_200 && push.collapseID == "score")
        #expect(push.environment == .development && push.isDeliverable && push.registration?.bundleID == TestWorld.app)
        #expect(push.payload?["aps"]?["alert"]?["title"]?.stringValue == "Goal")
        #expect(push.payload?["match"]?.integerValue == 42)
        #expect(push.receivedAt == Harness.start)
    }

    /// A token APNs does not know (accepted by policy) reaches the sink with its own text, the
    /// topic's bundle id and no registration or device.
    @Test func aPushToAnUnknownTokenCarriesTheTokenAndTheTopicsApp() throws {
        var policy = APNsPolicy()
        policy.acceptUnknownDeviceTokens = true
        let harness = try Harness(.token, policy: policy)
        let unknown = String(repeating: "9c", count: 32)
        #expect(harness.reason(harness.send(token: unknown)) == nil)
        let push = try #require(harness.sink.accepted.first)
        #expect(push.deviceToken == unknown && push.bundleID == TestWorld.app && push.topic == TestWorld.app)
        #expect(push.registration == nil && push.deviceID == nil)
    }

    /// The public initializer and setters agree with what a push reads back, whether or not a
    /// registration is given.
    @Test func anAcceptedPushReadsBackWhatItWasMadeWith() {
        let record = DeviceTokenRecord(token: TestWorld.devToken, bundleID: TestWorld.app, environment: .development, deviceID: "phone")
        var push = AcceptedPush(
            apnsID: APNsID("123e4567-e89b-12d3-a456-426614174000"), receivedAt: 5, environment: .development,
            deviceToken: TestWorld.devToken, registration: record, topic: TestWorld.app + ".voip", bundleID: "ignored.when.registered",
            pushType: .voip, priority: 10, expiration: 0, collapseID: nil, payload: .object([("a", .number(1))]),
            rawPayload: Array(#"{"a":1}"#.utf8), isDeliverable: true, connectionID: 7
        )
        #expect(push.registration == record && push.deviceID == "phone" && push.bundleID == TestWorld.app)
        #expect(push.expiration == 0 && push.priority == 10 && push.pushType == .voip && push.topic == TestWorld.app + ".voip")
        #expect(push.payload?["a"]?.integerValue == 1 && push.rawPayload == Array(#"{"a":1}"#.utf8) && push.connectionID == 7)
        push.registration = nil
        #expect(push.registration == nil && push.deviceID == nil)
        #expect(push.deviceToken == TestWorld.devToken && push.bundleID == TestWorld.app, "the token and app stay")
        push.expiration = nil
        push.payload = nil
        #expect(push.expiration == nil && push.payload == nil)
        let unregistered = AcceptedPush(
            apnsID: APNsID("123e4567-e89b-12d3-a456-426614174000"), receivedAt: 5, environment: .production,
            deviceToken: "abc", registration: nil, topic: "com.example.other", bundleID: "com.example.other", pushType: .alert,
            priority: 5, expiration: nil, collapseID: "c", payload: nil, rawPayload: [], isDeliverable: false, connectionID: 1
        )
        #expect(unregistered.deviceToken == "abc" && unregistered.bundleID == "com.example.other" && unregistered.registration == nil)
        #expect(unregistered.expiration == nil && unregistered.collapseID == "c" && !unregistered.isDeliverable)
    }

    /// A read's requests are stamped with the time the read arrived (one clock read for all of
    /// them); a request outside a read reads the clock itself.
    @Test func requestsOfOneReadShareItsTime() throws {
        let harness = try Harness(.token)
        harness.connection.peerWasActive()
        harness.clock.advance(milliseconds: 5)
        let request = APNsRequest(
            method: "POST", path: "/3/device/\(TestWorld.devToken)", authority: nil,
            headers: [("apns-topic", TestWorld.app), ("authorization", "bearer \(harness.providerToken)")],
            body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        )
        let inRead = harness.connection.handle(request)
        harness.connection.flushRecords()
        #expect(inRead.response?.status == 200)
        harness.send()
        let times = harness.log.entries(limit: 2).map(\.time).sorted()
        #expect(times == [Harness.start, Harness.start + 5])
        #expect(harness.sink.accepted.map(\.receivedAt) == [Harness.start, Harness.start + 5])
    }

    @Test func uniqueIDsAreSentOnDevelopmentSuccessOnly() throws {
        let development = try Harness(.token)
        let id = try #require(development.send().response?.uniqueID)
        #expect(id == id.lowercased() && id.count == 36)
        #expect(development.send(token: "zz").response?.uniqueID == nil)
        let production = try Harness(.token, environment: .production)
        #expect(production.send(token: TestWorld.prodToken).response?.uniqueID == nil)
        var policy = APNsPolicy()
        policy.sendUniqueIDInDevelopment = false
        #expect(try Harness(.token, policy: policy).send().response?.uniqueID == nil)
    }

    @Test func generatedApnsIDsAreUpperCaseVersion4UUIDs() {
        var ids = APNsIDGenerator()
        let samples = (0..<200).map { _ in ids.next() }
        #expect(Set(samples).count == 200)
        for id in samples {
            let characters = Array(id)
            #expect(characters.count == 36 && characters[14] == "4" && "89AB".contains(characters[19]))
            #expect(id == id.uppercased())
        }
    }

    @Test func theLogKeepsEveryRequestNewestFirstAcrossConnections() throws {
        let log = RequestLog(capacity: 10, shards: 4)
        let world = try TestWorld()
        let service = APNsProviderService(world: world.world, log: log)
        let token = try world.token(issuedAt: Int64(SystemClock().now() / 1000))
        let connections = (1...3).map { service.makeConnectionHandler(for: ConnectionInfo(id: UInt64($0), listenerEnvironment: .development)) }
        for round in 0..<5 {
            for (index, connection) in connections.enumerated() {
                let path = "/3/device/" + (index == 0 ? TestWorld.devToken : String(repeating: "0\(round)", count: 32))
                _ = connection.handle(APNsRequest(path: path, headers: [("apns-topic", TestWorld.app), ("authorization", "bearer \(token)")], body: [1]))
                connection.flushRecords()
            }
        }
        let entries = log.entries(limit: 100)
        #expect(entries.count == 10, "bounded by capacity")
        #expect(entries.map(\.sequence) == (6...15).reversed().map(Int64.init), "the newest ten, newest first")
        #expect(log.entries(limit: 100) { $0.status == 200 }.allSatisfy { $0.connectionID == 1 })
        #expect(log.entries(limit: 2) { $0.reason == .badDeviceToken }.count == 2)
        log.removeAll()
        #expect(log.count == 0)
    }

    @Test func aConnectionPublishesItsRecordsWhenTheTransportAsksAndOnClose() throws {
        let log = RequestLog()
        let batches = Mutex<[[Int64]]>([])
        log.observe { entries in batches.withLock { $0.append(entries.map(\.sequence)) } }
        let world = try TestWorld()
        let service = APNsProviderService(world: world.world, log: log)
        let token = try world.token(issuedAt: Int64(SystemClock().now() / 1000))
        let connection = service.makeConnectionHandler(for: ConnectionInfo(id: 1, listenerEnvironment: .development))
        func send(_ deviceToken: String) {
            let request = APNsRequest(path: "/3/device/" + deviceToken, headers: [("apns-topic", TestWorld.app), ("authorization", "bearer \(token)")], body: [1])
            _ = connection.handle(request)
        }
        send(TestWorld.devToken)
        send("00")
        #expect(log.entries().isEmpty && batches.withLock { $0 }.isEmpty, "answered, not yet published")
        connection.flushRecords()
        #expect(log.entries().map(\.status) == [400, 200], "newest first")
        #expect(batches.withLock { $0 } == [[1, 2]], "one batch, oldest first")
        connection.flushRecords()
        #expect(batches.withLock { $0 }.count == 1, "nothing new, nothing published")
        send(TestWorld.devToken)
        connection.connectionDidClose()
        #expect(batches.withLock { $0 } == [[1, 2], [3]], "closing publishes the rest")
    }

    @Test func aLogThatKeepsNoneStillNumbersAndPublishes() {
        let log = RequestLog(capacity: 10)
        let seen = Mutex<[Int64]>([])
        log.observe { entries in seen.withLock { $0 += entries.map(\.sequence) } }
        log.resumeSequence(after: 41)
        log.resumeSequence(after: 7)
        log.keepNone()
        var batch = (0..<3).map { _ in
            RequestLog.Entry(time: 0, connectionID: 1, environment: .development, deviceTokenKey: nil, topic: nil, pushType: nil, status: 200, reason: nil, apnsID: APNsID("A"))
        }
        log.append(contentsOf: &batch, connectionID: 1)
        #expect(batch.isEmpty)
        #expect(seen.withLock { $0 } == [42, 43, 44], "numbered on after the highest resume point")
        #expect(log.entries().isEmpty && log.count == 0 && log.capacity == 0)
    }

    /// The observer keeps the batch it was given; the connection's next batch starts in a new
    /// array sized for a batch like the last, not the largest it ever held.
    @Test func aPublishedBatchIsKeptByItsObserverAndTheNextStartsSizedForOneLikeIt() {
        let log = RequestLog(capacity: 0)
        let kept = Mutex<[[RequestLog.Entry]]>([])
        log.observe { entries in kept.withLock { $0.append(entries) } }
        func entries(_ count: Int) -> [RequestLog.Entry] {
            (0..<count).map { _ in
                RequestLog.Entry(time: 0, connectionID: 1, environment: .development, deviceTokenKey: nil, topic: "t", pushType: nil, status: 200, reason: nil, apnsID: APNsID("A"))
            }
        }
        var batch = entries(500)
        log.append(contentsOf: &batch, connectionID: 1)
        #expect(batch.isEmpty && batch.capacity >= 500)
        batch = entries(3)
        batch.reserveCapacity(500)
        log.append(contentsOf: &batch, connectionID: 1)
        #expect(batch.isEmpty && batch.capacity >= 3 && batch.capacity < 500)
        #expect(kept.withLock { $0.map(\.count) } == [500, 3])
        #expect(kept.withLock { $0[1].map(\.sequence) } == [501, 502, 503])
    }
}
