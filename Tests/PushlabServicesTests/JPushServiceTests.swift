import PushlabCore
@testable import PushlabServices
import Testing

/// JPush end to end without I/O: phones registered, pushes resolved to them, APNs requests made,
/// custom messages handed to connected apps at once and to others when they next connect.
@Suite struct JPushServiceTests {
    static let app = JPushApp(
        appKey: "7d431e42dfa6a6d693ac2d04", masterSecret: "5e987ac6d2e04d95a9d8f0d1", bundleID: "com.example.app",
        apnsCredential: .signingKey(path: "AuthKey.p8", keyID: "KEY1", teamID: "TEAM1")
    )

    static func service() -> (JPushService, [JPushDevice]) {
        var service = JPushService(seed: 3)
        service.directory.add(app)
        var devices: [JPushDevice] = []
        for number in 0..<3 {
            var device = service.directory.register(appKey: app.appKey)!
            service.directory.update(device.registrationID) { device in
                device.deviceToken = String(repeating: "\(number)", count: 64)
                device.tags = number == 0 ? ["vip", "beijing"] : ["beijing"]
                device.alias = "user\(number)"
                device.badge = number
            }
            device = service.directory.devices[device.registrationID]!
            devices.append(device)
        }
        return (service, devices)
    }

    static func push(_ json: String) -> JPushPush {
        try! JPushPush.parse(Array(json.utf8))
    }

    @Test func audiencesSelectAsJPushDocumentsAndNoneIs1011() {
        let (service, devices) = Self.service()
        func ids(_ audience: String) -> [String]? {
            guard case .success(let found) = service.directory.resolve(Self.push(#"{"platform":"all","audience":\#(audience),"notification":{"alert":"a"}}"#).audience, appKey: Self.app.appKey) else { return nil }
            return found.map(\.registrationID)
        }
        #expect(ids(#""all""#)?.count == 3)
        #expect(ids(#"{"tag":["vip","nowhere"]}"#) == [devices[0].registrationID])
        #expect(ids(#"{"tag_and":["vip","beijing"]}"#) == [devices[0].registrationID])
        #expect(ids(#"{"tag":["beijing"],"tag_not":["vip"]}"#) == [devices[1].registrationID, devices[2].registrationID])
        #expect(ids(#"{"alias":["user2"],"tag":["beijing"]}"#) == [devices[2].registrationID], "selectors together: every one of them")
        #expect(ids(#"{"registration_id":["140fe1da9e22a23f92f"]}"#) == nil)
        #expect(service.directory.resolve(.all, appKey: "another-app").failureCode == .noTarget)
    }

    @Test func aNotificationMakesAnAPNsRequestPerPhoneWithItsBadge() throws {
        var (service, devices) = Self.service()
        let push = Self.push(#"{"platform":["ios"],"audience":{"tag":["beijing"]},"notification":{"ios":{"alert":"hi","badge":"+1"}},"options":{"sendno":9}}"#)
        let result = try service.send(push, from: Self.app, at: 1_000).get()
        #expect(result.ids.sendNo == "9" && result.ids.body == #"{"sendno":"9","msg_id":"\#(result.ids.messageID)"}"#)
        #expect(result.apnsRequests.map(\.registrationID) == devices.map(\.registrationID))
        #expect(result.apnsRequests.map { $0.plan.payload.contains(#""badge":\#($0.registrationID == devices[2].registrationID ? 3 : devices[0].registrationID == $0.registrationID ? 1 : 2)"#) } == [true, true, true])
        #expect(result.apnsRequests.allSatisfy { $0.plan.environment == .production && $0.plan.topic == "com.example.app" })
        service.apnsAnswered(messageID: result.ids.messageID, status: 200)
        service.apnsAnswered(messageID: result.ids.messageID, status: 400)
        #expect(service.counts(of: result.ids.messageID) == JPushMessageCounts(apnsTarget: 3, apnsSent: 1, messageTarget: 0, messagesReceived: 0))
        #expect(service.directory.devices[devices[0].registrationID]?.badge == 0, "JPush does not raise the badge it keeps: the SDK sets it")
    }

    @Test func customMessagesReachConnectedAppsNowAndOthersWhenTheyConnectWithinTheirTime() throws {
        var (service, devices) = Self.service()
        _ = service.connect(devices[0].registrationID, at: 0)
        let push = Self.push(#"{"platform":["ios"],"audience":"all","message":{"msg_content":"sync","extras":{"k":1}},"options":{"time_to_live":60}}"#)
        let result = try service.send(push, from: Self.app, at: 1_000).get()
        #expect(result.apnsRequests.isEmpty, "a custom message never goes through APNs")
        #expect(result.deliveredNow.map(\.registrationID) == [devices[0].registrationID] && result.deliveredNow.allSatisfy { !$0.offline })
        let later = service.connect(devices[1].registrationID, at: 60_999)
        #expect(later.map(\.message.content) == ["sync"] && later.allSatisfy(\.offline), "just under 60 s later: still within its time to live")
        #expect(service.connect(devices[2].registrationID, at: 61_000).isEmpty, "60 s after: its time to live is over")
        #expect(service.counts(of: result.ids.messageID)?.messagesReceived == 2)
    }

    @Test func timeToLiveZeroReachesOnlyConnectedAppsAndTheSameCidSendsOnce() throws {
        var (service, devices) = Self.service()
        let push = Self.push(#"{"platform":["ios"],"audience":"all","message":{"msg_content":"now or never"},"options":{"time_to_live":0},"cid":"7d431e42dfa6a6d693ac2d04-1"}"#)
        let first = try service.send(push, from: Self.app, at: 1_000).get()
        #expect(first.deliveredNow.isEmpty)
        #expect(service.connect(devices[1].registrationID, at: 1_001).isEmpty)
        let again = try service.send(push, from: Self.app, at: 2_000).get()
        #expect(again.ids == first.ids && again.deliveredNow.isEmpty && again.apnsRequests.isEmpty)
    }

    @Test func validateChecksEverythingAndSendsNothing() throws {
        var (service, _) = Self.service()
        let result = try service.send(Self.push(#"{"platform":["ios"],"audience":"all","notification":{"alert":"a"}}"#), from: Self.app, at: 0, validate: true).get()
        #expect(result.apnsRequests.isEmpty && service.counts(of: result.ids.messageID) == nil)
        let nobody = service.send(Self.push(#"{"platform":["android"],"audience":"all","notification":{"alert":"a"}}"#), from: Self.app, at: 0, validate: true)
        #expect(nobody.failureCode == .noTarget, "no iOS phone of the app is selected")
    }
}

extension Result where Failure == JPushError {
    var failureCode: JPushErrorCode? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
