import Foundation
import PushlabClient
import PushlabTesting
import Testing

/// What `start` sets up from its arguments, what ships with the library, and `stop`.
@Suite("Starting and stopping the test server")
struct StartingTheServerTests {
    /// This repository's default scenario (a consumer would pass a file of its own).
    private static let defaultScenario = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scenarios/default.yaml").path

    @Test func theCertificatesAndTheSigningKeyShipWithTheLibrary() throws {
        let certificates = TLSCertificates.bundled
        for file in [certificates.serverCertificateChain, certificates.serverPrivateKey, certificates.certificateAuthority] {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains("-----BEGIN"), "\(file.path)")
        }
        let key = try ProviderSigningKey.bundled()
        #expect((key.keyID, key.teamID) == ("PUSHLAB001", "TEAMPUSHLB"))
        #expect(key.privateKeyPEM.contains("BEGIN PRIVATE KEY"))
        // header.claims.signature, with the key id and team in the first two parts.
        let parts = try key.providerToken(issuedAt: 1_767_225_600_000).split(separator: ".")
        #expect(parts.count == 3)
        #expect(parts.prefix(2).joined(separator: ".") == ProviderToken.signingInput(keyID: "PUSHLAB001", teamID: "TEAMPUSHLB", issuedAt: 1_767_225_600))
    }

    /// The library ships copies of `certs/`; regenerating `certs/` without copying them again
    /// would leave consumers on the old set.
    @Test func theShippedCopiesMatchTheRepositoryCertificates() throws {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("certs")
        let key = try ProviderSigningKey.bundled()
        let certificates = TLSCertificates.bundled
        for shipped in [certificates.serverCertificateChain, certificates.serverPrivateKey, certificates.certificateAuthority, key.privateKeyFile, key.publicKeyFile] {
            let original = repository.appendingPathComponent(shipped.lastPathComponent)
            #expect(try Data(contentsOf: shipped) == Data(contentsOf: original), "\(shipped.lastPathComponent) differs from certs/")
        }
    }

    @Test func aFreshServerKnowsTheKeyAndTheDefaultAppAndStartsNow() async throws {
        let before = SystemClock().now()
        try await withPushlabTestServer { server in
            #expect(server.world.key("PUSHLAB001")?.teamID == "TEAMPUSHLB")
            #expect(server.world.app(PushlabTestServer.defaultBundleID)?.teamID == "TEAMPUSHLB")
            #expect(server.simulator.deviceCount == 0)
            #expect((before...SystemClock().now()).contains(server.clock.now))
            #expect(server.developmentURL.absoluteString == "https://localhost:\(server.developmentPort)")
            #expect(server.developmentPort > 0 && server.productionPort > 0 && server.host == "127.0.0.1")
            #expect(server.caCertificatePath == TLSCertificates.bundled.certificateAuthority.path)
        }
    }

    @Test func aScenarioSettingsAndAClockStartAreUsed() async throws {
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
        var settings = SimulatorSettings()
        settings.backgroundPushesPerHour = 1
        try await withPushlabTestServer(scenario: Self.defaultScenario, simulatorSettings: settings, clockStart: start) { server in
            #expect(server.simulator.devices.map(\.id) == ["ann", "ben", "cara", "dan"])
            #expect(server.simulator.settings == settings)
            #expect(server.clock.date == start)

            // The scenario's tokens and key work with a token minted on the test clock.
            let client = try await ProviderClient.connect(to: server)
            let ann = try #require(server.deviceToken(of: "ann"))
            let answer = try await client.send(ProviderClient.alert(#"{"aps":{"alert":"hi"}}"#, to: ann, topic: PushlabTestServer.defaultBundleID, providerToken: try server.providerToken()))
            #expect(answer.status == 200)
            await client.close()
        }
    }

    @Test func thePolicyDecidesWhatAPNsRefuses() async throws {
        var policy = APNsPolicy()
        policy.strictPayload = true
        try await withPushlabTestServer(policy: policy) { server in
            let token = try server.addDevice("phone")
            let client = try await ProviderClient.connect(to: server)
            let answer = try await client.send(ProviderClient.alert("[1,2]", to: token, topic: PushlabTestServer.defaultBundleID, providerToken: try server.providerToken()))
            #expect((answer.status, answer.reason) == (400, "BadRequestPayload"))
            #expect(server.policy.strictPayload)
            await client.close()
        }
    }

    @Test func theClockMovesOnlyForward() async throws {
        try await withPushlabTestServer(clockStart: Date(timeIntervalSince1970: 1_767_225_600)) { server in
            try server.clock.advance(by: .seconds(2 * 3600))
            #expect(server.clock.now == 1_767_232_800_000)
            #expect(throws: SimulatorError.self) { try server.clock.advance(by: .seconds(-1)) }
            try server.clock.set(to: Date(timeIntervalSince1970: 1_767_225_600))
            #expect(server.clock.now == 1_767_225_600_000)
        }
    }

    @Test func certificatesThatCannotBeReadAreNamed() async throws {
        let missing = URL(fileURLWithPath: "/nonexistent/server.pem")
        var certificates = TLSCertificates.bundled
        certificates.serverCertificateChain = missing
        let error = await #expect(throws: PushlabTestingError.self) {
            _ = try await PushlabTestServer.start(certificates: certificates)
        }
        #expect(error?.description == "The server certificate /nonexistent/server.pem cannot be read")
    }

    @Test func stoppingTwiceIsHarmless() async throws {
        let server = try await PushlabTestServer.start()
        await server.stop()
        await server.stop()
        await #expect(throws: APNsClientError.self) { _ = try await ProviderClient.connect(to: server) }
    }
}
