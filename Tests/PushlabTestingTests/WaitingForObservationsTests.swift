import Foundation
import PushlabClient
@testable import PushlabTesting
import Testing

/// `waitForObservation` and `waitForCallback`: they return the moment the observation exists,
/// and a wait that runs out says what the device did observe instead.
@Suite("Waiting for observations")
struct WaitingForObservationsTests {
    /// Far longer than any of these waits may take: a wait that returns did not run out.
    private let generous = Duration.seconds(60)

    @Test func anObservationRecordedBeforeTheWaitIsReturnedAtOnce() async throws {
        try await withPushlabTestServer { server in
            try server.addDevice("phone", state: .background)
            try server.simulator.changeApp(PushlabTestServer.defaultBundleID, on: "phone", to: .foreground)
            let recordedBeforeTheWait = server.lastObservationSequence
            let active = try await server.waitForCallback(named: .didBecomeActive, on: "phone", timeout: generous)
            #expect(active.kind == .callback && active.deviceID == "phone")
            // Found in the log, not waited for: it was recorded before the wait began.
            #expect(active.sequence <= recordedBeforeTheWait)
            // The observations before it are readable in order.
            #expect(server.observations(device: "phone", kind: .callback).last == active)
        }
    }

    @Test func aWaitWakesWhenTheObservationIsRecorded() async throws {
        try await withPushlabTestServer { server in
            try server.addDevice("phone", state: .background)
            let mark = server.lastObservationSequence
            async let woken = server.waitForObservation(device: "phone", kind: .appState, since: mark, timeout: generous)
            // Once the wait is registered it is woken by the simulator, not found in the log.
            try await waitUntilRegistered(server)
            try server.simulator.changeApp(PushlabTestServer.defaultBundleID, on: "phone", to: .foreground)
            let observation = try await woken
            #expect(observation.event == .appState(from: .background, to: .inactive))
            #expect(observation.sequence > mark)
        }
    }

    @Test func sinceSkipsWhatHappenedBefore() async throws {
        try await withPushlabTestServer { server in
            try server.addDevice("phone", state: .background)
            try server.simulator.changeApp(PushlabTestServer.defaultBundleID, on: "phone", to: .foreground)
            let mark = server.lastObservationSequence
            await #expect(throws: ObservationWaitTimeout.self) {
                try await server.waitForCallback(named: .didBecomeActive, on: "phone", since: mark, timeout: .milliseconds(50))
            }
        }
    }

    @Test func aTimeoutSaysTheDeviceObservedNothingAndAPNsHadNoRequest() async throws {
        try await withPushlabTestServer { server in
            // Not running: an app created running would have observed its launch.
            try server.addDevice("phone", state: .notRunning)
            let error = await #expect(throws: ObservationWaitTimeout.self) {
                try await server.waitForObservation(device: "phone", kind: .banner, timeout: .milliseconds(50))
            }
            #expect(error?.observed == [] && error?.answers == [])
            #expect(error?.description == """
                Waited 0.05 seconds for an observation of kind banner on device phone, and it did not come.
                Device phone observed nothing.
                APNs had no request for its tokens.
                """)
        }
    }

    @Test func aTimeoutListsWhatTheDeviceObservedAndHowAPNsAnswered() async throws {
        try await withPushlabTestServer { server in
            let app = "com.example.chat"
            let token = try server.addDevice("phone", app: app, state: .background)
            let client = try await ProviderClient.connect(to: server)
            let jwt = try server.providerToken()
            let accepted = try await client.send(ProviderClient.alert(#"{"aps":{"alert":"hi"}}"#, to: token, topic: app, providerToken: jwt))
            // The token belongs to another app than the topic: refused, nothing reaches the phone.
            let refused = try await client.send(ProviderClient.alert(#"{"aps":{"alert":"hi"}}"#, to: token, topic: PushlabTestServer.defaultBundleID, providerToken: jwt))
            #expect((accepted.status, refused.status, refused.reason) == (200, 400, "DeviceTokenNotForTopic"))
            await client.close()

            // Nobody taps the banner, so the app's delegate never hears of it.
            let error = await #expect(throws: ObservationWaitTimeout.self) {
                try await server.waitForCallback(named: .didReceiveResponse, on: "phone", timeout: .milliseconds(100))
            }
            let message = try #require(error?.description)
            #expect(message.hasPrefix(
                "Waited 0.1 seconds for a callback userNotificationCenter:didReceiveNotificationResponse:withCompletionHandler: on device phone, and it did not come."
            ))
            // Its launch at creation (didFinishLaunching, didRegister…), then the push.
            #expect(error?.observed.map(\.kind) == [.callback, .callback, .delivered, .banner, .notificationCenter])
            #expect(message.contains("  \(app)  banner  \(try #require(accepted.apnsID))  {\"body\":\"hi\",\"actions\":[]}"))
            #expect(error?.answers.map(\.status) == [200, 400])
            #expect(message.contains("APNs answered 2 request(s) for its tokens:\n  200  development  topic \(app)"))
            #expect(message.contains("  400 DeviceTokenNotForTopic  development  topic \(PushlabTestServer.defaultBundleID)"))
        }
    }

    @Test func aTimeoutOnAnUnknownDeviceSaysSo() async throws {
        try await withPushlabTestServer { server in
            let error = await #expect(throws: ObservationWaitTimeout.self) {
                try await server.waitForCallback(named: .didBecomeActive, on: "nobody", timeout: .milliseconds(20))
            }
            #expect(error?.deviceExists == false)
            #expect(error?.description.hasSuffix("There is no device nobody; add it with addDevice first.") == true)
        }
    }

    @Test func cancellingAWaitEndsItAtOnce() async throws {
        try await withPushlabTestServer { server in
            try server.addDevice("phone")
            let wait = Task { try await server.waitForObservation(device: "phone", kind: .banner, timeout: generous) }
            try await waitUntilRegistered(server)
            wait.cancel()
            // Not the timeout's error: the wait ended because it was cancelled.
            await #expect(throws: CancellationError.self) { try await wait.value }
        }
    }

    /// Until one wait is registered with the server's waiters (a condition, not a pause).
    private func waitUntilRegistered(_ server: PushlabTestServer) async throws {
        let deadline = ContinuousClock.now + generous
        while server.waiters.count == 0 {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
