import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: /v1/devices/{id}/apps/{bundleId}/local-notifications")
struct LocalNotificationRouteTests {
    static let path = "/v1/devices/phone/apps/com.example.app/local-notifications"

    @Test func scheduleListFireAndCancel() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let scheduled = try await client.call(.post, Self.path, #"""
                {"identifier":"standup","title":"Stand up","body":"Daily","sound":"default","badge":1,
                 "userInfo":{"z":1,"a":{"b":[true,null]}},"trigger":{"type":"timeInterval","seconds":90}}
                """#)
            #expect(scheduled.status == 201)
            #expect(scheduled["nextFireTime"]?.stringValue == "2026-01-01T00:01:30.000Z")
            #expect(scheduled["trigger"]?["type"]?.stringValue == "timeInterval")
            #expect(scheduled["content"]?["userInfo"]?.objectKeys == ["z", "a"], "userInfo keeps the order sent")
            let daily = try await client.call(.post, Self.path, #"{"identifier":"daily","body":"Nine","trigger":{"type":"calendar","hour":9,"repeats":true}}"#)
            #expect(daily["nextFireTime"]?.stringValue == "2026-01-01T09:00:00.000Z")
            let dated = try await client.call(.post, Self.path, #"{"identifier":"dated","body":"Later","trigger":{"type":"date","at":"2026-02-01T10:00:00Z","repeatInterval":"week"}}"#)
            #expect(dated["trigger"]?["at"]?.stringValue == "2026-02-01T10:00:00.000Z")

            let listed = try await client.call(.get, Self.path)
            #expect(listed["localNotifications"]?.array.compactMap { $0["identifier"]?.stringValue } == ["standup", "daily", "dated"])

            _ = try await client.call(.post, "/v1/clock", #"{"advance":90}"#)
            let fired = try await client.call(.get, "/v1/devices/phone/observations?kind=delivered")
            #expect(fired["observations"]?.array.first?["notificationId"]?.stringValue == "standup")
            #expect(fired["observations"]?.array.first?["time"]?.stringValue == "2026-01-01T00:01:30.000Z")

            let cancelled = try await client.call(.delete, Self.path + "/daily")
            #expect(cancelled["cancelled"]?.bool == true)
            expectError(try await client.call(.delete, Self.path + "/daily"), 404, containing: "No pending local notification daily")
        }
    }

    @Test func presentNowAndRefusal() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let presented = try await client.call(.post, Self.path, #"{"identifier":"now","title":"Now","presentNow":true}"#)
            #expect(presented.status == 201)
            #expect(presented["presented"]?.bool == true)
            let seen = try await client.call(.get, "/v1/devices/phone/observations?kind=banner")
            #expect(seen["observations"]?.array.first?["title"]?.stringValue == "Now")

            _ = try await client.call(.patch, "/v1/devices/phone/apps/com.example.app", #"{"authorization":"denied"}"#)
            expectError(
                try await client.call(.post, Self.path, #"{"identifier":"nope","title":"No","trigger":{"type":"timeInterval","seconds":5}}"#),
                409, containing: "Attempting to schedule a local notification nope with an alert but haven't received permission"
            )
        }
    }

    @Test func triggersThatCannotBe() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            expectError(try await client.call(.post, Self.path, #"{"identifier":"x","body":"b"}"#), 400, containing: "trigger is required unless presentNow is true")
            expectError(
                try await client.call(.post, Self.path, #"{"identifier":"x","trigger":{"type":"weekly"}}"#),
                400, containing: "trigger.type must be one of timeInterval, date, calendar, region, not weekly"
            )
            expectError(try await client.call(.post, Self.path, #"{"identifier":"x","trigger":{"type":"timeInterval"}}"#), 400, containing: "trigger.seconds is required")
            expectError(
                try await client.call(.post, Self.path, #"{"identifier":"x","trigger":{"type":"timeInterval","seconds":1e300}}"#),
                400, containing: "trigger.seconds must be at most 3153600000 seconds (100 years)"
            )
            expectError(
                try await client.call(.post, Self.path, #"{"identifier":"x","trigger":{"type":"timeInterval","seconds":5,"hour":3}}"#),
                400, containing: "trigger.hour does not go with trigger.type timeInterval"
            )
            expectError(
                try await client.call(.post, Self.path, #"{"identifier":"x","trigger":{"type":"timeInterval","seconds":30,"repeats":true}}"#),
                400, containing: "at least 60 if repeating"
            )
            expectError(
                try await client.call(.post, Self.path, #"{"identifier":"x","trigger":{"type":"date","at":"tomorrow"}}"#),
                400, containing: "trigger.at must be an ISO 8601 time"
            )
            expectError(
                try await client.call(.post, Self.path, #"{"identifier":"x","trigger":{"type":"date","at":"2026-02-01T00:00:00Z","repeatInterval":"fortnight"}}"#),
                400, containing: "trigger.repeatInterval must be one of minute, hour, day, week, month, year, not fortnight"
            )
            expectError(try await client.call(.post, Self.path, #"{"identifier":"x","trigger":{"type":"calendar","hour":25}}"#), 400, containing: "hour must be 0...23")
            expectError(try await client.call(.post, Self.path, #"{"identifier":"","presentNow":true}"#), 400, containing: "needs an identifier")
            expectError(try await client.call(.post, Self.path, #"{"identifier":"x","userInfo":[1],"presentNow":true}"#), 400, containing: "userInfo must be a JSON object")
            expectError(try await client.call(.post, Self.path, #"{"identifier":"x","trigger":{"type":"region","region":"a","radius":5}}"#), 400, containing: "Unknown field: trigger.radius")
            expectError(try await client.call(.get, "/v1/devices/phone/apps/com.example.none/local-notifications"), 404, containing: "not installed")
        }
    }
}
