import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: Live Activities and channels")
struct LiveActivityRouteTests {
    static let app = "/v1/devices/phone/apps/com.example.app"

    @Test func installStartUpdateEndAndSwitch() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            let installed = try await client.call(.post, "/v1/devices", #"""
                {"id":"ipad","iosVersion":"18.1","apps":[{"bundleId":"com.example.live","state":"foreground",
                 "liveActivities":{"frequentUpdates":true,"attributesTypes":["DeliveryAttributes"]}}]}
                """#)
            #expect(installed.status == 201)
            let support = installed["apps"]?.array.first?["liveActivities"]
            #expect(support?["pushToStartToken"]?.stringValue?.count == 64)
            #expect(support?["frequentUpdates"]?.bool == true)

            let path = "/v1/devices/ipad/apps/com.example.live"
            let started = try await client.call(.post, path + "/activities", #"{"attributesType":"DeliveryAttributes","attributes":{"order":"42"},"contentState":{"eta":10},"pushType":"token"}"#)
            #expect(started.status == 201, "\(started)")
            #expect(started["state"]?.stringValue == "active")
            #expect(started["pushToken"]?.stringValue?.count == 64)
            let activityID = try #require(started["id"]?.stringValue)

            let updated = try await client.call(.patch, path + "/activities/\(activityID)", #"{"contentState":{"eta":4}}"#)
            #expect(updated["contentState"]?["eta"]?.int == 4)
            let listed = try await client.call(.get, "/v1/devices/ipad/activities")
            #expect(listed["activities"]?.array.map { $0["bundleId"]?.stringValue } == ["com.example.live"])

            let ended = try await client.call(.post, path + "/activities/\(activityID)/end", #"{"dismissalPolicy":"default"}"#)
            #expect(ended["state"]?.stringValue == "ended")
            #expect(ended["dismissAt"]?.stringValue == "2026-01-01T04:00:00.000Z")
            expectError(try await client.call(.patch, path + "/activities/\(activityID)", #"{"contentState":{"eta":1}}"#), 409, containing: "has ended")

            let off = try await client.call(.patch, path + "/live-activities", #"{"enabled":false}"#)
            #expect(off["enabled"]?.bool == false)
            expectError(
                try await client.call(.post, path + "/activities", #"{"attributesType":"DeliveryAttributes"}"#), 409,
                containing: "ActivityAuthorizationError.denied"
            )
            let observed = try await client.call(.get, "/v1/devices/ipad/observations?kind=liveActivity")
            #expect(observed["observations"]?.array.compactMap { $0["event"]?.stringValue } == ["started", "updated", "ended"])
        }
    }

    @Test func refusals() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            expectError(
                try await client.call(.post, Self.app + "/activities", #"{"attributesType":"X"}"#), 409,
                containing: "does not declare NSSupportsLiveActivities"
            )
            expectError(try await client.call(.patch, Self.app + "/live-activities", #"{}"#), 400, containing: "Give enabled")
            expectError(
                try await client.call(.post, Self.app + "/activities", #"{"attributesType":"X","pushType":"carrier"}"#), 400,
                containing: "pushType must be token or channel"
            )
            expectError(
                try await client.call(.post, "/v1/devices", #"{"apps":[{"bundleId":"a.b","liveActivities":{"enabled":true,"colour":1}}]}"#), 400,
                containing: "colour"
            )
            expectError(try await client.call(.get, "/v1/channels?environment=moon"), 400, containing: "environment")
        }
    }

    @Test func channelsListedPerApp() async throws {
        let h = try ControlHarness()
        let channel = try h.world.channels.create(bundleID: ControlHarness.app, environment: .development, storagePolicy: .mostRecent, at: 0, limit: 10)
        _ = try h.world.channels.create(bundleID: "com.other", environment: .production, storagePolicy: .noStorage, at: 1, limit: 10)
        try await h.application.test(.router) { client in
            let all = try await client.call(.get, "/v1/channels")
            #expect(all["channels"]?.array.count == 2)
            let mine = try await client.call(.get, "/v1/channels?bundleId=\(ControlHarness.app)&environment=sandbox")
            #expect(mine["channels"]?.array.map { $0["id"]?.stringValue } == [channel.id])
            #expect(mine["channels"]?.array.first?["messageStoragePolicy"]?.int == 1)
        }
    }
}
