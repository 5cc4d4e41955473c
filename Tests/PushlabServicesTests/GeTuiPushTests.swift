import PushlabCore
@testable import PushlabServices
import Testing

@Suite struct GeTuiPushTests {
    static func parse(_ json: String, for endpoint: GeTuiPush.Endpoint = .single) throws(GeTuiError) -> GeTuiPush {
        try GeTuiPush.parse(Array(json.utf8), for: endpoint)
    }

    static func refusal(_ json: String, for endpoint: GeTuiPush.Endpoint = .single) -> GeTuiError? {
        do {
            _ = try parse(json, for: endpoint)
            return nil
        } catch {
            return error
        }
    }

    @Test func theDocumentsExampleIsAccepted() throws {
        let push = try Self.parse("""
        {"request_id":"0123456789ab","settings":{"ttl":7200000,"strategy":{"default":1,"ios":2}},"audience":{"cid":["cid-1"]},
         "push_message":{"transmission":"{\\"order\\":7}"},
         "push_channel":{"ios":{"type":"notify","payload":"自定义消息","aps":{"alert":{"title":"T","body":"B"},"content-available":0},"auto_badge":"+1"}}}
        """)
        #expect(push.requestID == "0123456789ab" && push.clientIDs == ["cid-1"])
        #expect(push.message == .transmission(#"{"order":7}"#))
        #expect(push.timeToLiveMilliseconds == 7_200_000 && push.iosStrategy == 2)
        #expect(push.ios?.autoBadge == .add(1) && push.ios?.payload == "自定义消息")
    }

    @Test func defaults() throws {
        let push = try Self.parse(#"{"request_id":"0123456789ab","audience":{"cid":["c"]},"push_message":{"transmission":"x"}}"#)
        #expect(push.timeToLiveMilliseconds == 7_200_000 && push.iosStrategy == 1 && push.ios == nil)
        let kept = try Self.parse(#"{"request_id":"0123456789ab","audience":{"cid":["c"]},"push_message":{"transmission":"x"},"settings":{"ttl":-1}}"#)
        #expect(kept.timeToLiveMilliseconds == nil, "-1: not kept for a phone that is not connected")
        let all = try Self.parse(#"{"request_id":"0123456789ab","audience":"all","push_message":{"transmission":"x"}}"#, for: .all)
        #expect(all.clientIDs == nil)
    }

    @Test(arguments: [
        (#"{"audience":{"cid":["c"]},"push_message":{"transmission":"x"}}"#, "request_id can not be empty"),
        (#"{"request_id":"short","audience":{"cid":["c"]},"push_message":{"transmission":"x"}}"#, "request_id is invalid"),
        (#"{"request_id":"0123456789ab","push_message":{"transmission":"x"}}"#, "audience can not be empty"),
        (#"{"request_id":"0123456789ab","audience":{"cid":["a","b"]},"push_message":{"transmission":"x"}}"#, "cid size over limit"),
        (#"{"request_id":"0123456789ab","audience":{"cid":["c"]}}"#, "push_message can not be empty"),
        (#"{"request_id":"0123456789ab","audience":{"cid":["c"]},"push_message":{"transmission":"x","revoke":{"old_task_id":"t"}}}"#,
         "please choose one of notification and transmission and revoke"),
        (#"{"request_id":"0123456789ab","audience":{"cid":["c"]},"push_message":{"transmission":"x"},"settings":{"ttl":259200001}}"#, "ttl is invalid"),
        (#"{"request_id":"0123456789ab","audience":{"cid":["c"]},"push_message":{"transmission":"x"},"settings":{"strategy":{"ios":5}}}"#,
         "strategy.ios is invalid"),
        (#"{"request_id":"0123456789ab","audience":{"cid":["c"]},"push_message":{"transmission":"x"},"push_channel":{"ios":{"auto_badge":"+x"}}}"#,
         "auto_badge is invalid"),
        ("[1]", "request body must be JsonString"),
    ])
    func badPushesAre20001(body: String, message: String) {
        let error = Self.refusal(body)
        #expect(error?.code == .invalidParameter && error?.httpStatus == 400 && error?.message == message, "\(body)")
    }

    @Test func theIOSChannelBecomesAnAPNsRequest() throws {
        let push = try Self.parse("""
        {"request_id":"0123456789ab","audience":{"cid":["c"]},"push_message":{"transmission":"x"},
         "push_channel":{"ios":{"payload":"p","aps":{"alert":{"title":"T","body":"B"},"sound":"default","badge":9},"auto_badge":"+1","apns-collapse-id":"k"}}}
        """)
        let (plan, badge) = try #require(push.apnsRequest(
            for: "ab12", topic: "com.example.app", environment: .development, taskID: "RASS_1129_x", messageID: "m1", storedBadge: 2
        ))
        #expect(badge == 3 && plan.pushType == "alert" && plan.priority == 10 && plan.collapseID == "k" && plan.environment == .development)
        #expect(plan.payload == #"{"aps":{"alert":{"title":"T","body":"B"},"sound":"default","badge":3},"payload":"p","_ge_":1,"_gmid_":"RASS_1129_x:m1"}"#)
    }

    @Test func aSilentChannelIsBackgroundAndWithoutOneAPNsGetsNothing() throws {
        let silent = try Self.parse(#"{"request_id":"0123456789ab","audience":{"cid":["c"]},"push_message":{"transmission":"x"},"push_channel":{"ios":{"aps":{"content-available":1}}}}"#)
        let plan = try #require(silent.apnsRequest(for: "ab", topic: "t", environment: .production, taskID: "t", messageID: "m", storedBadge: 0)).plan
        #expect(plan.pushType == "background" && plan.priority == 5)
        let bare = try Self.parse(#"{"request_id":"0123456789ab","audience":{"cid":["c"]},"push_message":{"transmission":"x"}}"#)
        #expect(bare.apnsRequest(for: "ab", topic: "t", environment: .production, taskID: "t", messageID: "m", storedBadge: 0) == nil)
    }
}
