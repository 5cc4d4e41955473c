import HummingbirdTesting
import PushlabControl
import PushlabCore
import Testing

@Suite("Routes: /v1/reset, /metrics, and errors everywhere")
struct ResetMetricsAndErrorTests {
    @Test(arguments: [false, true])
    func resetPutsTheScenarioBack(store: Bool) async throws {
        let h = try ControlHarness(store: store)
        let original = h.token()
        try await h.application.test(.router) { client in
            _ = try await client.call(.post, "/v1/devices", #"{"id":"extra"}"#)
            _ = try await client.call(.post, "/v1/devices/phone/apps/com.example.app/reinstall")
            _ = try await client.call(.post, "/v1/faults", #"{"delayMs":10}"#)
            _ = try await client.call(.post, "/v1/clock", #"{"advance":7200}"#)
            h.service.policy.strictPayload = true
            h.push(to: h.token())

            let reset = try await client.call(.post, "/v1/reset")
            #expect(reset.status == 200)
            #expect(reset["status"]?.stringValue == "reset")
            #expect(reset["devices"]?.int == 1)
            #expect(reset["clock"]?["time"]?.stringValue == "2026-01-01T00:00:00.000Z")
            #expect(try await client.call(.get, "/v1/faults")["faults"]?.array == [])
            #expect(try await client.call(.get, "/v1/pushes")["pushes"]?.array == [], "the request log starts again")
            #expect(try await client.call(.get, "/v1/observations")["observations"]?.array == [], "observations before the reset are not listed")
            #expect(try await client.call(.get, "/v1/devices")["devices"]?.array.compactMap { $0["id"]?.stringValue } == ["phone"])
            #expect(h.service.policy.strictPayload == false)
            #expect(h.token() != original, "the scenario's device got a fresh token (it gave none)")

            h.push(to: h.token())
            #expect(try await client.call(.get, "/v1/pushes")["pushes"]?.array.count == 1)
            #expect(try await client.call(.get, "/v1/observations?kind=delivered")["observations"]?.array.count == 1)
        }
    }

    @Test func metricsCountRequestsObservationsAndDevices() async throws {
        let h = try ControlHarness(store: true)
        h.push(to: h.token())
        h.push(to: String(repeating: "ef", count: 32))
        let measured = h.api.metrics.measuring(h.service)
        let connection = measured.makeConnectionHandler(for: ConnectionInfo(id: 99, listenerEnvironment: .production))
        _ = connection.handle(APNsRequest(path: "/3/device/00"))
        connection.flushRecords()
        try await h.application.test(.router) { client in
            let scrape = try await client.call(.get, "/metrics")
            #expect(scrape.status == 200)
            #expect(scrape.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let lines = Set(scrape.text.split(separator: "\n").map(String.init))
            #expect(lines.contains(#"pushlab_apns_requests_total{environment="development",status="200",reason=""} 1"#))
            #expect(lines.contains(#"pushlab_apns_requests_total{environment="development",status="400",reason="BadDeviceToken"} 1"#))
            #expect(lines.contains(#"pushlab_apns_requests_total{environment="production",status="403",reason="MissingProviderToken"} 1"#), "\(scrape.text)")
            #expect(lines.contains("pushlab_apns_accepted_total 1"))
            #expect(lines.contains(#"pushlab_observations_total{kind="delivered"} 1"#))
            #expect(lines.contains("pushlab_apns_answer_seconds_count 1"))
            #expect(lines.contains("pushlab_apns_connections_total 1"))
            #expect(lines.contains("pushlab_apns_open_connections 1.0"))
            #expect(lines.contains("pushlab_devices 1.0"))
            #expect(lines.contains { $0.hasPrefix("pushlab_store_backlog ") })
        }
        connection.connectionDidClose()
        connection.connectionDidClose()
        #expect(h.api.metrics.connections == 0, "a connection closes once")
    }

    @Test func everyFailureIsJSON() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            expectError(try await client.call(.get, "/v1/nowhere"), 404, containing: "No route GET /v1/nowhere; docs/CONTROL-API.md lists the routes")
            let wrongMethod = try await client.call(.put, "/v1/devices/phone")
            expectError(wrongMethod, 405, containing: "/v1/devices/phone takes GET, PATCH, DELETE, not PUT")
            #expect(wrongMethod.headers[.allow] == "GET, PATCH, DELETE")
            expectError(try await client.call(.post, "/v1/devices", String(repeating: " ", count: 2_000_000)), 400, containing: "larger than 1024 KiB")
            // The stand-in keeps what it gets as text, under the same limit (it was a 500).
            expectError(try await client.call(.post, "/stand-in/devices", String(repeating: "a", count: 2_000_000)), 400, containing: "larger than 1024 KiB")
            #expect(try await client.call(.get, "/v1/stand-in")["requests"]?.array == [], "nothing was kept of it")
        }
    }
}
