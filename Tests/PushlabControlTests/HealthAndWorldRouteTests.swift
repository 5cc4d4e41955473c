import HummingbirdTesting
import PushlabControl
import PushlabCore
import PushlabOpenSSL
import Testing

@Suite("Routes: /v1/health, /v1/keys, /v1/apps")
struct HealthAndWorldRouteTests {
    @Test func healthTellsWhereAndWhen() async throws {
        let h = try ControlHarness()
        await h.api.setListeners([.init(host: "127.0.0.1", port: 2197, environment: .development)])
        try await h.application.test(.router) { client in
            let health = try await client.call(.get, "/v1/health")
            #expect(health.status == 200)
            #expect(health["status"]?.stringValue == "ok")
            #expect(health["devices"]?.int == 1)
            #expect(health["scenario"]?.stringValue == "test")
            #expect(health["clock"]?["mode"]?.stringValue == "manual")
            #expect(health["clock"]?["time"]?.stringValue == "2026-01-01T00:00:00.000Z")
            #expect(health["listeners"]?.array.first?["url"]?.stringValue == "https://127.0.0.1:2197")
            expectError(try await client.call(.get, "/v1/health?verbose=1"), 400, containing: "Unknown query parameter verbose")
        }
    }

    /// What kill -9 can lose of acknowledged pushes: the store's crash window, or nothing when
    /// durable; nothing to say without a store.
    @Test func healthSaysWhatACrashCanLose() async throws {
        let stored = try ControlHarness(store: true)
        try await stored.application.test(.router) { client in
            let health = try await client.call(.get, "/v1/health")
            #expect(health["crashWindowMs"]?.int == 250 && health["durable"]?.bool == false)
        }
        let bare = try ControlHarness()
        try await bare.application.test(.router) { client in
            let health = try await client.call(.get, "/v1/health")
            #expect(health["crashWindowMs"] == nil && health["durable"] == nil)
        }
    }

    @Test func aKeyAddedHereSignsAcceptedPushes() async throws {
        let h = try ControlHarness()
        let privatePEM = try SampleKey.privatePEM
        try await h.application.test(.router) { client in
            let app = try await client.call(.post, "/v1/apps", #"{"bundleId":"com.example.news","teamId":"TEAMPUSHLB"}"#)
            #expect(app.status == 201)
            #expect(app.text == #"{"bundleId":"com.example.news","teamId":"TEAMPUSHLB","broadcastEnabled":true}"# + "\n")
            let closed = try await client.call(.post, "/v1/apps", #"{"bundleId":"com.example.quiet","teamId":"TEAMPUSHLB","broadcastEnabled":false}"#)
            #expect(closed["broadcastEnabled"]?.bool == false)
            #expect(h.world.app("com.example.quiet")?.broadcastEnabled == false)
            let key = try await client.call(.post, "/v1/keys", #"{"keyId":"PUSHLAB001","teamId":"TEAMPUSHLB","privateKeyPem":\#(jsonString(privatePEM)),"environment":"development"}"#)
            #expect(key.status == 201)
            #expect(key.json.objectKeys == ["keyId", "teamId", "environment"], "no key material: \(key.text)")
            #expect(key["environment"]?.stringValue == "development")
            let installed = try await client.call(.post, "/v1/devices/phone/apps", #"{"bundleId":"com.example.news"}"#)
            #expect(installed.status == 201)
            #expect(installed["warnings"] == nil)
            let token = try #require(installed["deviceToken"]?.stringValue)
            let outcome = try h.push(to: token, signedBy: ES256Key(pem: privatePEM), keyID: SampleKey.keyID, teamID: SampleKey.teamID, topic: "com.example.news")
            #expect(outcome.response?.status == 200)
            let keys = try await client.call(.get, "/v1/keys")
            #expect(keys["keys"]?.array.map { $0["keyId"]?.stringValue } == ["PUSHLAB001"])
            let apps = try await client.call(.get, "/v1/apps")
            #expect(apps["apps"]?.array.compactMap { $0["bundleId"]?.stringValue } == ["com.example.app", "com.example.news", "com.example.quiet"])
        }
    }

    @Test func keysAreCheckedBeforeTheyAreAdded() async throws {
        let h = try ControlHarness()
        let publicPEM = try SampleKey.publicPEM
        try await h.application.test(.router) { client in
            let body = #"{"keyId":"K1","teamId":"T1","publicKeyPem":\#(jsonString(publicPEM)),"topics":["com.example.app"]}"#
            let added = try await client.call(.post, "/v1/keys", body)
            #expect(added.status == 201)
            #expect(added["topics"]?.array == [.string("com.example.app")])
            #expect(added["environment"]?.stringValue == "both")
            expectError(try await client.call(.post, "/v1/keys", body), 409, containing: "Key K1 already exists")
            expectError(
                try await client.call(.post, "/v1/keys", #"{"keyId":"K2","teamId":"T1","publicKeyPem":"not a key"}"#),
                400, containing: "publicKeyPem is not an EC P-256 key"
            )
            expectError(
                try await client.call(.post, "/v1/keys", #"{"keyId":"K2","teamId":"T1","publicKeyPem":\#(jsonString(publicPEM)),"privateKeyPem":"x"}"#),
                400, containing: "Give one of publicKeyPem or privateKeyPem"
            )
            expectError(
                try await client.call(.post, "/v1/keys", #"{"keyId":"K2","teamId":"T1","publicKeyPem":\#(jsonString(publicPEM)),"environment":"staging"}"#),
                400, containing: "environment must be one of development, production, both, not staging"
            )
            expectError(try await client.call(.post, "/v1/keys", #"{"teamId":"T1"}"#), 400, containing: "missing keyId")
            let removed = try await client.call(.delete, "/v1/keys/K1")
            #expect(removed["removed"]?.bool == true)
            expectError(try await client.call(.delete, "/v1/keys/K1"), 404, containing: "No key K1")
        }
    }

    @Test func appsOfTheWorld() async throws {
        let h = try ControlHarness()
        try await h.application.test(.router) { client in
            expectError(
                try await client.call(.post, "/v1/apps", #"{"bundleId":"com.example.app","teamId":"OTHER"}"#),
                409, containing: "already an app of team TEAM123456"
            )
            expectError(try await client.call(.post, "/v1/apps", #"{"bundleId":"","teamId":"T"}"#), 400, containing: "bundleId must not be empty")
        }
    }
}
