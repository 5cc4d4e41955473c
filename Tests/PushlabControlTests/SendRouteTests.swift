import Foundation
import HummingbirdTesting
import PushlabControl
import PushlabCore
import PushlabOpenSSL
import PushlabScenario
import PushlabTransport
import Testing

@Suite("Routes: POST /v1/send")
struct SendRouteTests {
    /// The harness's APNs service behind a real TLS + HTTP/2 listener, the sample key registered
    /// for the harness's team and offered to the route as a scenario key with its private half.
    private func withListener(_ body: @escaping @Sendable (ControlHarness, any TestClientProtocol, _ port: Int) async throws -> Void) async throws {
        let signer = Scenario.Signer(keyID: SampleKey.keyID, teamID: ControlHarness.team, key: try ES256Key(pem: try SampleKey.privatePEM))
        let h = try ControlHarness(signers: [signer])
        let configuration = ServerConfiguration(
            listeners: [.init(host: "127.0.0.1", port: 0, environment: .development)],
            certificateChainFile: SampleKey.directory.appendingPathComponent("server.pem").path,
            privateKeyFile: SampleKey.directory.appendingPathComponent("server-key.pem").path,
            clientCertificateAuthoritiesFile: nil, threads: 1, shutdownGracePeriod: .seconds(2)
        )
        let server = try PushlabServer(configuration: configuration, service: h.service)
        let listeners = try await server.start()
        await h.api.setListeners(listeners)
        do {
            try await h.application.test(.router) { client in
                let key = try await client.call(.post, "/v1/keys", #"{"keyId":"PUSHLAB001","teamId":"\#(ControlHarness.team)","publicKeyPem":\#(jsonString(try SampleKey.publicPEM))}"#)
                #expect(key.status == 201)
                try await body(h, client, listeners[0].port)
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func aPushGoesThroughTheListenerAndReachesThePhone() async throws {
        try await withListener { h, client, port in
            let sent = try await client.call(.post, "/v1/send", #"{"deviceId":"phone","payload":{"aps":{"alert":{"title":"Hi","body":"There"}},"n":1},"priority":10,"collapseId":"c1"}"#)
            #expect(sent.status == 200, "\(sent.text)")
            let answer = try #require(sent["answer"])
            #expect(answer["status"]?.int == 200)
            let apnsID = try #require(answer["headers"]?["apns-id"]?.stringValue)
            #expect(answer["body"] == nil && answer["reason"] == nil)
            let request = try #require(sent["request"])
            #expect(request["url"]?.stringValue == "https://127.0.0.1:\(port)/3/device/\(h.token())")
            #expect(request["environment"]?.stringValue == "development")
            #expect(request["headers"]?.objectKeys == ["authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-collapse-id"])
            #expect(request["headers"]?["apns-topic"]?.stringValue == ControlHarness.app)
            #expect(request["headers"]?["authorization"]?.stringValue?.hasPrefix("bearer ey") == true)
            #expect(request["payload"]?.stringValue == #"{"aps":{"alert":{"title":"Hi","body":"There"}},"n":1}"#)
            let curl = try #require(sent["curl"]?.stringValue)
            #expect(curl.hasPrefix("curl -sS -i --http2 \\\n  --cacert 'certs/ca.pem'"))
            #expect(curl.contains("-H 'apns-collapse-id: c1'"))
            #expect(curl.hasSuffix("'https://127.0.0.1:\(port)/3/device/\(h.token())'"))

            let seen = try await client.call(.get, "/v1/devices/phone/observations?kind=banner")
            #expect(seen["observations"]?.array.map { $0["notificationId"]?.stringValue } == [apnsID])
        }
    }

    @Test func apnsRefusalsComeBackAsAPNsGaveThem() async throws {
        try await withListener { _, client, _ in
            let unknown = String(repeating: "0f", count: 32)
            let refused = try await client.call(.post, "/v1/send", #"{"deviceToken":"\#(unknown)","topic":"\#(ControlHarness.app)","payload":{"aps":{"alert":"x"}}}"#)
            #expect(refused.status == 200)
            #expect(refused["answer"]?["status"]?.int == 400)
            #expect(refused["answer"]?["reason"]?.stringValue == "BadDeviceToken")
            #expect(refused["answer"]?["body"]?.stringValue == #"{"reason":"BadDeviceToken"}"#)
            #expect(refused["answer"]?["headers"]?["apns-id"] != nil)

            // A string payload is sent as it is: APNs accepts a body it does not read.
            let raw = try await client.call(.post, "/v1/send", #"{"deviceId":"phone","payload":"not json"}"#)
            #expect(raw["answer"]?["status"]?.int == 200)
            #expect(raw["request"]?["payload"]?.stringValue == "not json")

            // A key the world does not know signs a token APNs refuses.
            let other = try PrivateKey.generateP256().pem()
            let foreign = try await client.call(.post, "/v1/send", #"{"deviceId":"phone","keyId":"OTHERKEY01","teamId":"\#(ControlHarness.team)","privateKeyPem":\#(jsonString(other)),"payload":{}}"#)
            #expect(foreign["answer"]?["status"]?.int == 403)
            #expect(foreign["answer"]?["reason"]?.stringValue == "InvalidProviderToken")

            // A fault rule that resets the stream leaves no answer to show.
            #expect(try await client.call(.post, "/v1/faults", #"{"resetStream":true,"count":1}"#).status == 201)
            let reset = try await client.call(.post, "/v1/send", #"{"deviceId":"phone","payload":{}}"#)
            #expect(reset.status == 200)
            #expect(reset["answer"] == nil)
            #expect(reset["noAnswer"]?.stringValue?.contains("reset") == true, "\(reset.text)")
            #expect(reset["curl"] != nil)
        }
    }

    @Test func requestsThatCannotBeSentAreRefusedWithTheReason() async throws {
        try await withListener { _, client, _ in
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone"}"#), 400, containing: "payload is required")
            expectError(try await client.call(.post, "/v1/send", #"{"payload":{}}"#), 400, containing: "Give deviceId (and bundleId) of a simulated device, or a deviceToken")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","deviceToken":"ab","payload":{}}"#), 400, containing: "not both")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"nobody","payload":{}}"#), 404, containing: "No device nobody")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","bundleId":"com.other","payload":{}}"#), 404, containing: "No app com.other on device phone")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceToken":"ab/../cd","payload":{}}"#), 400, containing: "deviceToken must be hex digits")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceToken":"abcd","bundleId":"x","payload":{}}"#), 400, containing: "bundleId goes with deviceId")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","topic":"a\nb","payload":{}}"#), 400, containing: "topic must not hold line breaks")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","environment":"staging","payload":{}}"#), 400, containing: "environment must be one of development, production, not staging")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","environment":"production","payload":{}}"#), 409, containing: "No APNs listener serves production device pushes")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","privateKeyPem":"x","payload":{}}"#), 400, containing: "privateKeyPem needs keyId and teamId")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","keyId":"K","teamId":"T","privateKeyPem":"not a key","payload":{}}"#), 400, containing: "privateKeyPem is not an EC P-256 key")
            expectError(
                try await client.call(.post, "/v1/send", #"{"deviceId":"phone","keyId":"K","teamId":"T","privateKeyPem":\#(jsonString(try SampleKey.publicPEM)),"payload":{}}"#),
                400, containing: "privateKeyPem holds a public key"
            )
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","keyId":"NOSUCHKEY1","payload":{}}"#), 404, containing: "no private key for key id NOSUCHKEY1")
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","priority":"high","payload":{}}"#), 400, containing: "priority")
            expectError(try await client.call(.post, "/v1/send", #"{"device":"phone","payload":{}}"#), 400, containing: "Unknown field: device (allowed: apnsId, bundleId, collapseId")
        }
    }

    @Test func withoutAKeyToSignWithTheRouteSaysWhatToAdd() async throws {
        let h = try ControlHarness()
        await h.api.setListeners([.init(host: "127.0.0.1", port: 1, environment: .development)])
        try await h.application.test(.router) { client in
            expectError(try await client.call(.post, "/v1/send", #"{"deviceId":"phone","payload":{}}"#), 409, containing: "No key to sign a provider token with")
        }
    }
}
