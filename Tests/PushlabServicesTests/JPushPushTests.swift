import PushlabCore
@testable import PushlabServices
import Testing

/// JPush's push API read as JPush reads it: each refusal with its code and status, and what an
/// accepted push sends APNs.
@Suite struct JPushPushTests {
    static func parse(_ json: String) throws(JPushError) -> JPushPush {
        try JPushPush.parse(Array(json.utf8))
    }

    static func refusal(_ json: String) -> JPushError? {
        do {
            _ = try parse(json)
            return nil
        } catch {
            return error
        }
    }

    static let notice = #""notification":{"ios":{"alert":"hi"}}"#

    @Test func theDocumentsExampleIsAccepted() throws {
        let push = try Self.parse("""
        {"platform":["ios"],"audience":{"registration_id":["140fe1da9e22a23f92f"]},
         "notification":{"ios":{"alert":"hello, JPush!","sound":"sound.caf","badge":1,"extras":{"news_id":134,"my_key":"a value"}}},
         "message":{"msg_content":"Hi,JPush","content_type":"text","title":"msg","extras":{"key":"value"}},
         "options":{"sendno":18,"time_to_live":60,"apns_production":false,"apns_collapse_id":"order-1"}}
        """)
        #expect(push.platforms == [.ios])
        #expect(push.audience == .selected(.init(registrationIDs: ["140fe1da9e22a23f92f"])))
        #expect(push.iosNotification?.badge == .set(1) && push.iosNotification?.sound == .string("sound.caf"))
        #expect(push.message == .init(content: "Hi,JPush", title: "msg", contentType: "text", extras: .object([("key", .string("value"))])))
        #expect(push.options.sendNo == 18 && push.options.timeToLive == 60 && !push.options.apnsProduction)
        #expect(push.options.apnsCollapseID == "order-1")
        #expect(push.reachesIOS)
    }

    @Test func defaultsAreJPushsOwn() throws {
        let push = try Self.parse(#"{"platform":"all","audience":"all",\#(Self.notice)}"#)
        #expect(push.platforms == Set(JPushPush.Platform.allCases) && push.audience == .all)
        #expect(push.options.apnsProduction, "without apns_production the API pushes to production")
        #expect(push.options.timeToLive == 86_400 && push.options.sendNo == nil)
        #expect(push.iosNotification?.sound == nil, "no sound unless asked for")
    }

    @Test(arguments: [
        (#"{"audience":"all","notification":{"alert":"a"}}"#, JPushErrorCode.missingParameter),
        (#"{"platform":"all","notification":{"alert":"a"}}"#, .missingParameter),
        (#"{"platform":"all","audience":"all"}"#, .missingParameter),
        (#"{"platform":"all","audience":"all","message":{"title":"t"}}"#, .missingParameter),
        (#"{"platform":"all_platform","audience":"all","notification":{"alert":"a"}}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all_audience","notification":{"alert":"a"}}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all","notification":"a"}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all","notification":{"ios":"a"}}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all","notification":{"ios":{}}}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all","notification":{"ios":{"badge":11}}}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all","notification":{"ios":{"alert":"a","content_available":true}}}"#, .unsupportedKey),
        (#"{"platform":"all","audience":"all","notification":{"alert":"a"},"sendno":1}"#, .unsupportedKey),
        // The Python client's `sound_disable` is its own option: it never reaches JPush.
        (#"{"platform":"all","audience":"all","notification":{"ios":{"alert":"a","sound_disable":true}}}"#, .unsupportedKey),
        (#"{"platform":"all","audience":{"registration_id":["3"]},"notification":{"alert":"a"}}"#, .invalidParameter),
        (#"{"platform":"all","audience":{"tag":[""]},"notification":{"alert":"a"}}"#, .invalidParameter),
        (#"{"platform":"all","audience":{"city":["x"]},"notification":{"alert":"a"}}"#, .invalidParameter),
        (#"{"platform":"all","audience":{"tag":[]},"notification":{"alert":"a"}}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all","notification":{"ios":{"alert":"a","badge":"+100"}}}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all","notification":{"ios":{"alert":"a","interruption-level":"loud"}}}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all","notification":{"alert":"a"},"options":{"time_to_live":864000}}"#, .invalidParameter),
        (#"{"platform":"all","audience":"all","notification":{"alert":"a"},"options":{"apns_production":"yes"}}"#, .invalidParameter),
        ("not json", .invalidParameter),
    ])
    func badPushesGetJPushsCode(body: String, code: JPushErrorCode) {
        #expect(Self.refusal(body)?.code == code, "\(body)")
    }

    @Test func tooLargeIsItsOwnCode() {
        let long = String(repeating: "x", count: 2_000)
        #expect(Self.refusal(#"{"platform":"all","audience":"all","notification":{"ios":{"alert":"\#(long)"}}}"#)?.code == .messageTooLarge)
        let longer = String(repeating: "x", count: 4_000)
        #expect(Self.refusal(#"{"platform":"all","audience":"all","message":{"msg_content":"\#(longer)"}}"#)?.code == .messageTooLarge)
        #expect(JPushErrorCode.messageTooLarge.httpStatus == 400)
    }

    @Test func errorBodiesAreWhatJPushsClientsRead() {
        let error = JPushError(.noTarget)
        #expect(error.httpStatus == 400)
        #expect(error.body(messageID: 1_309_530_630) == #"{"msg_id":1309530630,"error":{"code":1011,"message":"cannot find user by this audience or has been inactive for more than 255 days"}}"#)
        #expect(JPushError(.authenticationFailed).body() == #"{"error":{"code":1004,"message":"Authen failed"}}"#)
        #expect(JPushErrorCode.authenticationFailed.httpStatus == 401 && JPushErrorCode.rateLimitExceeded.httpStatus == 429)
        #expect(JPushErrorCode.onlyPost.httpStatus == 405 && JPushErrorCode.internalTimeout.httpStatus == 503)
    }

    @Test func badgesAreNumbersOrSteps() {
        #expect(BadgeChange(text: "+1") == .add(1) && BadgeChange(text: "-3") == .add(-3) && BadgeChange(text: "7") == .set(7))
        #expect(BadgeChange(text: "") == .set(0), "an empty string clears the badge")
        #expect(BadgeChange(text: "+100") == nil && BadgeChange(text: "1.5") == nil && BadgeChange(text: "+") == nil && BadgeChange(text: "auto") == nil)
        #expect(BadgeChange(integer: 100_000) == nil && BadgeChange(integer: -1) == nil)
        #expect(BadgeChange.add(1).resolved(against: 4) == 5 && BadgeChange.add(-9).resolved(against: 4) == 0 && BadgeChange.set(2).resolved(against: 4) == 2)
    }

    @Test func theIOSNotificationBecomesAnAPNsRequest() throws {
        let push = try Self.parse("""
        {"platform":["ios"],"audience":"all","notification":{"ios":{"alert":{"title":"T","body":"B"},"sound":"default","badge":"+1",
         "content-available":1,"mutable-content":true,"category":"order","thread-id":"t1","interruption-level":"time-sensitive",
         "extras":{"order":7,"_j_msgid":1}}},"options":{"apns_collapse_id":"c1"}}
        """)
        let (plan, badge) = try #require(push.apnsRequest(for: "ab12", topic: "com.example.app", messageID: 38_280_619_866_253_999, userID: 29_847_243_158, storedBadge: 4))
        #expect(badge == 5)
        #expect(plan.environment == .production && plan.pushType == "alert" && plan.priority == 10 && plan.collapseID == "c1")
        #expect(plan.path == "/3/device/ab12")
        #expect(plan.payload == """
        {"aps":{"alert":{"title":"T","body":"B"},"badge":5,"sound":"default","content-available":1,"mutable-content":1,"category":"order",\
        "thread-id":"t1","interruption-level":"time-sensitive"},"order":7,"_j_business":1,"_j_msgid":38280619866253999,"_j_uid":29847243158}
        """)
        #expect(plan.headers.map(\.name) == ["apns-topic", "apns-push-type", "apns-priority", "apns-collapse-id"])
    }

    @Test func aSilentPushGoesAsBackgroundAtPriorityFive() throws {
        let push = try Self.parse(#"{"platform":["ios"],"audience":"all","notification":{"ios":{"alert":"","content-available":true}},"options":{"apns_production":false}}"#)
        let plan = try #require(push.apnsRequest(for: "ab12", topic: "com.example.app", messageID: 1, userID: 2, storedBadge: 0)).plan
        #expect(plan.pushType == "background" && plan.priority == 5 && plan.environment == .development)
        #expect(plan.payload == #"{"aps":{"content-available":1},"_j_business":1,"_j_msgid":1,"_j_uid":2}"#)
    }

    @Test func aTopLevelAlertReachesIOSAndACustomMessageAloneSendsNoAPNs() throws {
        let shared = try Self.parse(#"{"platform":"all","audience":"all","notification":{"alert":"to all","android":{"alert":"a"}}}"#)
        #expect(shared.iosNotification?.alert == .string("to all") && shared.hasOtherNotification)
        let message = try Self.parse(#"{"platform":["ios"],"audience":"all","message":{"msg_content":"hello"}}"#)
        #expect(message.apnsRequest(for: "ab", topic: "t", messageID: 1, userID: 1, storedBadge: 0) == nil)
        #expect(message.reachesIOS)
    }

    @Test func registrationIDsAreStableAndWellFormed() {
        func ids(seed: UInt64) -> [String] {
            var directory = JPushDirectory(seed: seed)
            directory.add(JPushAuthenticationTests.app)
            return (0..<3).map { _ in directory.register(appKey: JPushAuthenticationTests.app.appKey)!.registrationID }
        }
        let first = ids(seed: 7)
        #expect(first.allSatisfy { $0.count == 19 && JPushRegistrationID.isWellFormed($0) } && Set(first).count == 3)
        #expect(first == ids(seed: 7) && first != ids(seed: 8), "the same seed, the same ids")
        #expect(!JPushRegistrationID.isWellFormed("3") && !JPushRegistrationID.isWellFormed("140fe1da9e22-23f92f"))
    }
}

@Suite struct OfflineMessagesTests {
    @Test func messagesWaitTheirTimeToLiveAndTheNewestFiveAreKept() {
        var inbox = OfflineMessages<Int>(limit: JPushRules.offlineMessagesKept)
        #expect(inbox.keep(0, at: 1_000, timeToLiveMilliseconds: 0) == .dropped, "time_to_live 0: connected apps only")
        for number in 1...5 { #expect(inbox.keep(number, at: 1_000 + Int64(number), timeToLiveMilliseconds: 60_000) == .kept) }
        #expect(inbox.keep(6, at: 1_010, timeToLiveMilliseconds: 60_000) == .keptReplacingOldest)
        #expect(inbox.keep(7, at: 1_020, timeToLiveMilliseconds: 10) == .keptReplacingOldest)
        #expect(inbox.handOver(at: 1_030).map(\.message) == [3, 4, 5, 6], "7 ran out at 1,030; 1 and 2 made room")
        #expect(inbox.handOver(at: 1_031).isEmpty, "handed over once")
    }

    @Test func withoutALimitEveryMessageWithinItsTimeIsKept() {
        var inbox = OfflineMessages<String>(limit: nil)
        for number in 0..<20 { _ = inbox.keep("m\(number)", at: 0, timeToLiveMilliseconds: 7_200_000) }
        let expired = inbox.forgetExpired(now: 7_200_000)
        #expect(expired.count == 20 && inbox.kept.isEmpty, "two hours later every one ran out")
    }
}

@Suite struct JPushAuthenticationTests {
    static let app = JPushApp(
        appKey: "7d431e42dfa6a6d693ac2d04", masterSecret: "5e987ac6d2e04d95a9d8f0d1", bundleID: "com.example.app",
        apnsCredential: .signingKey(path: "AuthKey.p8", keyID: "KEY1", teamID: "TEAM1")
    )

    @Test func theDocumentsExampleHeaderAuthenticates() throws {
        let header = "Basic N2Q0MzFlNDJkZmE2YTZkNjkzYWMyZDA0OjVlOTg3YWM2ZDJlMDRkOTVhOWQ4ZjBkMQ=="
        #expect(BasicAuthorization.header(user: Self.app.appKey, password: Self.app.masterSecret) == header)
        #expect(try JPushApp.authenticate(header, among: [Self.app]).get() == Self.app)
    }

    @Test(arguments: [nil, "Bearer x", "Basic !!!", BasicAuthorization.header(user: "7d431e42dfa6a6d693ac2d04", password: "wrong"),
                      BasicAuthorization.header(user: "unknownappkey00000000000", password: "5e987ac6d2e04d95a9d8f0d1")])
    func anythingElseIs1004(header: String?) {
        guard case .failure(let error) = JPushApp.authenticate(header, among: [Self.app]) else {
            Issue.record("accepted \(header ?? "no header")")
            return
        }
        #expect(error.code == .authenticationFailed && error.httpStatus == 401)
    }
}
