import HummingbirdTesting
import PushlabControl
import PushlabCore
import PushlabStore
import Testing

@Suite("Routes: /v1/devices/{id}/observations, /v1/observations, /v1/pushes")
struct HistoryRouteTests {
    @Test(arguments: [false, true])
    func observationsOldestFirstWithFilters(store: Bool) async throws {
        let h = try ControlHarness(store: store)
        try h.simulator.addDevice(.init(id: "other", apps: [.init(bundleID: ControlHarness.app, deviceToken: "")]))
        h.push(to: h.token())
        h.push(to: h.token("other"))
        try await h.application.test(.router) { client in
            let all = try await client.call(.get, "/v1/devices/phone/observations")
            let sequences = all["observations"]?.array.compactMap { $0["sequence"]?.int } ?? []
            #expect(!sequences.isEmpty && sequences == sequences.sorted())
            #expect(all["observations"]?.array.allSatisfy { $0["deviceId"]?.stringValue == "phone" } == true)
            #expect(all["last"]?.int == sequences.last)

            let badge = try await client.call(.get, "/v1/devices/phone/observations?kind=badge&bundleId=com.example.app")
            #expect(badge["observations"]?.array.map { $0["badge"]?.int } == [3])
            let later = try await client.call(.get, "/v1/devices/phone/observations?since=\(sequences[0])&limit=1")
            #expect(later["observations"]?.array.map { $0["sequence"]?.int } == [sequences[1]])
            let none = try await client.call(.get, "/v1/devices/phone/observations?since=\(sequences.last!)")
            #expect(none["observations"]?.array == [] && none["last"]?.int == sequences.last)

            let everyone = try await client.call(.get, "/v1/observations?kind=delivered")
            #expect(Set(everyone["observations"]?.array.compactMap { $0["deviceId"]?.stringValue } ?? []) == ["phone", "other"])
            let filtered = try await client.call(.get, "/v1/observations?deviceId=other&kind=delivered")
            #expect(filtered["observations"]?.array.count == 1)

            expectError(
                try await client.call(.get, "/v1/devices/phone/observations?kind=alert"),
                400, containing: "kind must be one of stored, delivered, discarded, throttled, dropped, banner, sound, badge, notificationCenter, callback, appState, liveActivity, system, providerRequest, not alert"
            )
            expectError(try await client.call(.get, "/v1/devices/phone/observations?since=-1"), 400, containing: "since must be a whole number")
            expectError(try await client.call(.get, "/v1/devices/phone/observations?deviceId=x"), 400, containing: "Unknown query parameter deviceId")
            expectError(try await client.call(.get, "/v1/devices/nobody/observations"), 404, containing: "No device nobody")
        }
    }

    @Test(arguments: [false, true])
    func pushesNewestFirstWithFilters(store: Bool) async throws {
        let h = try ControlHarness(store: store)
        let token = h.token()
        let unknown = String(repeating: "ef", count: 32)
        h.push(to: token)
        h.push(to: unknown)
        h.push(to: token, type: "background", priority: 5, payload: #"{"aps":{"content-available":1}}"#)
        try await h.application.test(.router) { client in
            let all = try await client.call(.get, "/v1/pushes")
            let pushes = all["pushes"]?.array ?? []
            #expect(pushes.count == 3)
            #expect(pushes.compactMap { $0["sequence"]?.int } == [3, 2, 1])
            #expect(pushes.first?["pushType"]?.stringValue == "background")
            #expect(pushes[1]["status"]?.int == 400 && pushes[1]["reason"]?.stringValue == "BadDeviceToken")
            #expect(pushes.last?["apnsId"]?.stringValue?.count == 36)

            let rejected = try await client.call(.get, "/v1/pushes?status=400")
            #expect(rejected["pushes"]?.array.count == 1)
            let byReason = try await client.call(.get, "/v1/pushes?reason=BadDeviceToken")
            #expect(byReason["pushes"]?.array.first?["deviceToken"]?.stringValue == unknown)
            let byToken = try await client.call(.get, "/v1/pushes?deviceToken=\(token.uppercased())&limit=1")
            #expect(byToken["pushes"]?.array.compactMap { $0["sequence"]?.int } == [3])

            expectError(try await client.call(.get, "/v1/pushes?reason=Bad"), 400, containing: "reason must be one of BadCollapseId, BadDeviceToken")
            expectError(try await client.call(.get, "/v1/pushes?status=99"), 400, containing: "status must be a whole number from 100 to 599")
            expectError(try await client.call(.get, "/v1/pushes?limit=100000"), 400, containing: "limit must be a whole number from 1 to 10000")
        }
    }
}
