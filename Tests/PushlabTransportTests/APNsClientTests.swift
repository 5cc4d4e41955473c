import NIOCore
import NIOPosix
import PushlabClient
import PushlabCore
import PushlabTransport
import Testing

/// Pushlab's own client (what `pushlab send` and scenarios use) against Pushlab's server.
@Suite("APNsClient against a real server")
struct APNsClientTests {
    private let token = String(repeating: "ab", count: 32)
    private let goneToken = String(repeating: "cd", count: 32)

    private func withServer(_ body: (Int) async throws -> Void) async throws {
        let world = APNsWorld(
            apps: [AppRecord(bundleID: "com.pushlab.demo", teamID: "TEAMPUSHLB")],
            tokens: [
                DeviceTokenRecord(token: token, bundleID: "com.pushlab.demo", environment: .development),
                DeviceTokenRecord(token: goneToken, bundleID: "com.pushlab.demo", environment: .development, state: .unregistered(since: 1_767_225_600_000)),
            ]
        )
        var policy = APNsPolicy()
        policy.deviceTokenRateLimit = nil
        let service = APNsProviderService(world: world, policy: policy)
        let configuration = ServerConfiguration(
            listeners: [.init(host: "127.0.0.1", port: 0, environment: .development)],
            certificateChainFile: TestCertificates.path("server.pem"), privateKeyFile: TestCertificates.path("server-key.pem"),
            clientCertificateAuthoritiesFile: TestCertificates.path("ca.pem"), threads: 1, shutdownGracePeriod: .seconds(2)
        )
        let server = try PushlabServer(configuration: configuration, service: service)
        let port = try await server.start()[0].port
        do {
            try await body(port)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    private func connect(_ port: Int) async throws -> APNsClient {
        try await APNsClient.connect(.init(
            host: "127.0.0.1", port: port, serverName: "localhost", trustedCertificatesFile: TestCertificates.path("ca.pem"),
            certificateFile: TestCertificates.path("client-single-topic.pem"), privateKeyFile: TestCertificates.path("client-single-topic-key.pem")
        ))
    }

    @Test func answersAreReadAsAPNsWritesThem() async throws {
        try await withServer { port in
            let client = try await connect(port)
            let accepted = try await client.send(APNsNotification(deviceToken: token, payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), apnsID: "9B0E1E0A-1C2D-4E5F-8A9B-0C1D2E3F4A5B"))
            #expect(accepted.status == 200 && accepted.isAccepted)
            #expect(accepted.apnsID == "9B0E1E0A-1C2D-4E5F-8A9B-0C1D2E3F4A5B")
            #expect(accepted.apnsUniqueID?.count == 36 && accepted.body.isEmpty && accepted.reason == nil)

            let gone = try await client.send(APNsNotification(deviceToken: goneToken, payload: Array("{}".utf8)))
            #expect((gone.status, gone.reason, gone.timestamp) == (410, "Unregistered", 1_767_225_600_000))

            let bad = try await client.send(APNsNotification(deviceToken: token, payload: Array("{}".utf8), priority: 7))
            #expect((bad.status, bad.reason) == (400, "BadPriority"))
            await client.close()
        }
    }

    @Test func manyPushesInFlightOnOneConnection() async throws {
        try await withServer { port in
            let client = try await connect(port)
            // The first push raises the stream limit from 1 (APNs's rule before a first success).
            #expect(try await client.send(APNsNotification(deviceToken: token, payload: Array("{}".utf8))).status == 200)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await client.send(APNsNotification(deviceToken: token, payload: Array("{}".utf8))).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 })
            await client.close()
        }
    }

    @Test func aServerThatIsNotThereIsAReadableError() async throws {
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await APNsClient.connect(.init(host: "127.0.0.1", port: 1, trustedCertificatesFile: TestCertificates.path("ca.pem")))
        }
        #expect(error?.description.contains("Cannot connect to 127.0.0.1:1") == true)
    }
}
