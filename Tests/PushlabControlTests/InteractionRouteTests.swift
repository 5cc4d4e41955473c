import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: /v1/devices/{id}/interactions")
struct InteractionRouteTests {
    @Test func tappingANotificationAnswersWithWhatItCaused() async throws {
        let h = try ControlHarness()
        let apnsID = try #require(h.push(to: h.token()).response?.apnsID)
        try await h.application.test(.router) { client in
            let tapped = try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"tapNotification","bundleId":"com.example.app","apnsId":"\#(apnsID)"}"#)
            #expect(tapped.status == 200)
            let observations = tapped["observations"]?.array ?? []
            #expect(observations.first?["kind"]?.stringValue == "notificationCenter")
            #expect(observations.first?["reason"]?.stringValue == "tapped")
            let response = observations.first { $0["callback"]?.stringValue == "userNotificationCenter:didReceiveNotificationResponse:withCompletionHandler:" }
            #expect(response?["userInfo"]?["orderId"]?.int == 42)
            #expect(tapped["last"]?.int == observations.last?["sequence"]?.int)
        }
    }

    @Test func everyKindOfInteraction() async throws {
        let h = try ControlHarness()
        _ = try h.simulator.updateApp(ControlHarness.app, on: ControlHarness.phone) { app in
            app.categories = [.init(identifier: "MESSAGE", actions: [.init(identifier: "REPLY", textInput: true)])]
        }
        h.push(to: h.token(), payload: #"{"aps":{"alert":"one","category":"MESSAGE"}}"#)
        h.push(to: h.token(), payload: #"{"aps":{"alert":"two"}}"#)
        h.push(to: h.token(), payload: #"{"aps":{"alert":"three"}}"#)
        try await h.application.test(.router) { client in
            let dismissed = try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"dismiss","bundleId":"com.example.app"}"#)
            #expect(dismissed["observations"]?.array.first?["reason"]?.stringValue == "dismissed")
            let first = try #require(h.simulator.device("phone")?.app(ControlHarness.app)?.notificationCenter.first?.identifier)
            let action = try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"tapAction","bundleId":"com.example.app","notificationId":"\#(first)","actionId":"REPLY","text":"On my way"}"#)
            #expect(action["observations"]?.array.contains { $0["typedText"]?.stringValue == "On my way" } == true)
            let cleared = try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"clearAll"}"#)
            #expect(cleared["observations"]?.array.contains { $0["reason"]?.stringValue == "clearedAll" } == true)
            _ = try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"state":"background"}"#)
            let icon = try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"tapAppIcon","bundleId":"com.example.app"}"#)
            #expect(icon["observations"]?.array.contains { $0["to"]?.stringValue == "foreground" } == true)
        }
    }

    @Test func regionEventsFireRegionTriggers() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let scheduled = try await client.call(.post, "/v1/devices/phone/apps/com.example.app/local-notifications", #"{"identifier":"office","title":"At the office","trigger":{"type":"region","region":"HQ","onEntry":true}}"#)
            #expect(scheduled.status == 201)
            let entered = try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"enterRegion","region":"HQ"}"#)
            #expect(entered["observations"]?.array.first?["kind"]?.stringValue == "delivered")
            #expect(entered["observations"]?.array.first?["notificationId"]?.stringValue == "office")
            let left = try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"exitRegion","region":"HQ"}"#)
            #expect(left["observations"]?.array == [])
        }
    }

    @Test func interactionsThatMakeNoSense() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            expectError(
                try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"shake"}"#),
                400, containing: "type must be one of tapNotification, tapAppIcon, tapAction, dismiss, clearAll, enterRegion, exitRegion, not shake"
            )
            expectError(try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"tapAppIcon"}"#), 400, containing: "type tapAppIcon needs bundleId")
            expectError(
                try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"tapAction","bundleId":"com.example.app"}"#),
                400, containing: "type tapAction needs actionId"
            )
            expectError(
                try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"enterRegion","region":"HQ","bundleId":"com.example.app"}"#),
                400, containing: "bundleId does not go with type enterRegion"
            )
            expectError(
                try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"tapNotification","bundleId":"com.example.app","apnsId":"a","notificationId":"b"}"#),
                400, containing: "apnsId and notificationId name the same thing"
            )
            let nothing = try await client.call(.post, "/v1/devices/phone/interactions", #"{"type":"tapNotification","bundleId":"com.example.app"}"#)
            #expect(nothing.status == 404, "\(nothing.text)")
            #expect(nothing.json.objectKeys == ["error"])
            expectError(try await client.call(.post, "/v1/devices/nobody/interactions", #"{"type":"clearAll"}"#), 404, containing: "No device nobody")
        }
    }
}
