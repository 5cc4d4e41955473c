import Foundation
import PushlabClient
import PushlabTesting
import Testing

/// The library used as a provider's test suite would use it: a real HTTP/2 + TLS client
/// configured only from the handles the test server hands out.
@Suite("A provider's test pushes to a simulated phone")
struct ProviderPushesToASimulatedPhoneTests {
    private let app = "com.example.shop"

    @Test func pushTapWaitAdvanceTheClockAndInjectAFault() async throws {
        let server = try await PushlabTestServer.start()
        let token = try server.addDevice("phone", app: app, state: .background)
        let client = try await ProviderClient.connect(to: server)
        let jwt = try server.providerToken()

        // A push: APNs accepts it, the phone shows a banner.
        let shipped = try await client.send(ProviderClient.alert(#"{"aps":{"alert":{"title":"Order","body":"Shipped"}}}"#, to: token, topic: app, providerToken: jwt))
        #expect(shipped.status == 200)
        let apnsID = try #require(shipped.apnsID)
        let banner = try await server.waitForObservation(device: "phone", kind: .banner) { $0.notificationID == apnsID }
        #expect(banner.event == .banner(title: "Order", subtitle: nil, body: "Shipped", actions: []))

        // The user taps it: the app's notification delegate receives the payload.
        try server.simulator.interact(.tapNotification(bundleID: app, notificationID: apnsID), on: "phone")
        let response = try await server.waitForCallback(named: .didReceiveResponse, on: "phone")
        #expect(response.notificationID == apnsID)
        guard case .callback(_, _, let arguments) = response.event else { Issue.record("not a callback: \(response)"); return }
        #expect(arguments.userInfo?["aps"]?["alert"]?["body"]?.stringValue == "Shipped")

        // Offline, a push with a ten-minute expiration is stored; eleven minutes later it is gone.
        try server.simulator.updateDevice("phone", online: false)
        let expiresAt = server.clock.now / 1000 + 600
        let late = try await client.send(ProviderClient.alert(#"{"aps":{"alert":"Late"}}"#, to: token, topic: app, providerToken: jwt, expiration: expiresAt))
        #expect(late.status == 200)
        let lateID = try #require(late.apnsID)
        #expect(server.observations(device: "phone", kind: .stored).map(\.notificationID) == [lateID])
        let storedAt = server.clock.now
        try server.clock.advance(by: .seconds(11 * 60))
        let discarded = try await server.waitForObservation(device: "phone", kind: .discarded) { $0.notificationID == lateID }
        #expect(discarded.event == .discarded(.expired, replacedBy: nil))
        #expect(discarded.time == expiresAt * 1000 && discarded.time > storedAt)

        // A fault answers the next push to this token with 503; the one after is accepted again.
        try server.faults.add(FaultRule(deviceToken: token, count: 1, fault: .respond(.serviceUnavailable)))
        let refused = try await client.send(ProviderClient.alert(#"{"aps":{"alert":"Again"}}"#, to: token, topic: app, providerToken: jwt))
        #expect((refused.status, refused.reason) == (503, "ServiceUnavailable"))
        #expect(server.faults.rules.isEmpty)
        let accepted = try await client.send(ProviderClient.alert(#"{"aps":{"alert":"Again"}}"#, to: token, topic: app, providerToken: jwt))
        #expect(accepted.status == 200)

        // The request log saw all four, newest first.
        #expect(server.requests.entries().map(\.status) == [200, 503, 200, 200])
        #expect(server.requests.entries().first?.deviceToken == token)

        await client.close()
        await server.stop()
        await #expect(throws: APNsClientError.self) { _ = try await ProviderClient.connect(to: server) }
    }

    @Test func productionHasItsOwnURLAndItsOwnTokens() async throws {
        try await withPushlabTestServer { server in
            let productionToken = try server.addDevice("store-build", app: app, environment: .production)
            let developmentToken = try server.addDevice("debug-build", app: app, environment: .development)
            #expect(server.productionURL != server.developmentURL)
            #expect(server.productionURL.absoluteString == "https://localhost:\(server.productionPort)")

            let client = try await ProviderClient.connect(to: server, environment: .production)
            let jwt = try server.providerToken()
            let accepted = try await client.send(ProviderClient.alert(#"{"aps":{"alert":"hi"}}"#, to: productionToken, topic: app, providerToken: jwt))
            #expect(accepted.status == 200)
            try await server.waitForObservation(device: "store-build", kind: .banner)

            // A development token sent to the production host, as APNs answers it.
            let wrongHost = try await client.send(ProviderClient.alert(#"{"aps":{"alert":"hi"}}"#, to: developmentToken, topic: app, providerToken: jwt))
            #expect((wrongHost.status, wrongHost.reason) == (400, "BadDeviceToken"))
            #expect(server.observations(device: "debug-build").map(\.kind) == [.callback, .callback], "its launch at creation, and no push")
            await client.close()
        }
    }
}
