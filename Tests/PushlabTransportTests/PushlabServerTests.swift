import NIOCore
import NIOPosix
import PushlabCore
import PushlabTransport
import Testing

@Suite("Pushlab server over real TLS sockets")
struct PushlabServerTests {
    private func startServer(_ service: any APNsConnectionFactory) async throws -> (PushlabServer, dev: Int, prod: Int) {
        let configuration = ServerConfiguration(
            listeners: [
                .init(host: "127.0.0.1", port: 0, environment: .development),
                .init(host: "127.0.0.1", port: 0, environment: .production),
            ],
            certificateChainFile: TestCertificates.path("server.pem"),
            privateKeyFile: TestCertificates.path("server-key.pem"),
            clientCertificateAuthoritiesFile: TestCertificates.path("ca.pem"),
            threads: 1,
            shutdownGracePeriod: .seconds(2)
        )
        let server = try PushlabServer(configuration: configuration, service: service)
        let bound = try await server.start()
        return (server, bound[0].port, bound[1].port)
    }

    private struct Running {
        let server: PushlabServer
        let dev: Int
        let prod: Int
        let group: MultiThreadedEventLoopGroup
    }

    /// Starts a server and a client event loop group, runs `body`, and stops both whatever happens
    /// (stopping a server twice is harmless).
    private func withServer(_ service: any APNsConnectionFactory, _ body: (Running) async throws -> Void) async throws {
        let (server, dev, prod) = try await startServer(service)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await body(Running(server: server, dev: dev, prod: prod, group: group))
        } catch {
            await server.shutdown()
            try? await group.shutdownGracefully()
            throw error
        }
        await server.shutdown()
        try await group.shutdownGracefully()
    }

    @Test func clientCertificateReachesTheAPNsCore() async throws {
        let service = RecordingService()
        try await withServer(service) { running in
            let client = try await TLSTestClient.connect(port: running.dev, group: running.group, certificate: "client")
            let response = try await client.send()
            #expect(response.status == "200")
            let connection = try #require(service.connections.first)
            let certificate = try #require(connection.clientCertificate)
            #expect(certificate.isTrusted)
            #expect(certificate.userIDs == ["com.pushlab.demo"])
            #expect(certificate.extensions["1.2.840.113635.100.6.3.6"] != nil)
            #expect(certificate.extensions["1.2.840.113635.100.6.3.1"] != nil)
            #expect(connection.alpn == "h2")
            #expect(connection.listenerEnvironment == .development)
        }
    }

    @Test func untrustedCertificateIsReportedNotRefused() async throws {
        let service = RecordingService()
        try await withServer(service) { running in
            let client = try await TLSTestClient.connect(port: running.dev, group: running.group, certificate: "client-untrusted")
            #expect(try await client.send().status == "200")
            let certificate = try #require(service.connections.first?.clientCertificate)
            #expect(!certificate.isTrusted)
            #expect(certificate.verificationError != nil)
        }
    }

    @Test func connectionWithoutALPNIsServedAsHTTP2() async throws {
        let service = RecordingService()
        try await withServer(service) { running in
            let client = try await TLSTestClient.connect(port: running.prod, group: running.group, alpn: [])
            #expect(try await client.send().status == "200")
            #expect(try await client.onLoop { $0.handshake?.alpn } == nil)
            #expect(service.connections.first?.alpn == nil)
            #expect(service.connections.first?.clientCertificate == nil)
        }
    }

    @Test func appleHostNamesDecideTheEnvironment() async throws {
        let service = RecordingService()
        try await withServer(service) { running in
            let client = try await TLSTestClient.connect(port: running.dev, group: running.group, serverName: "api.push.apple.com")
            _ = try await client.send(authority: "api.sandbox.push.apple.com")
            let connection = try #require(service.connections.first)
            #expect(connection.serverName == "api.push.apple.com")
            #expect(connection.environment == .production)
            let request = try #require(service.requests.first)
            #expect(connection.environment(for: request) == .development)
        }
    }

    @Test func shutdownSendsGoAwayShutdownAndClosesConnections() async throws {
        try await withServer(RecordingService()) { running in
            let client = try await TLSTestClient.connect(port: running.dev, group: running.group)
            #expect(try await client.send().status == "200")
            #expect(running.server.connections.count == 1)
            await running.server.shutdown()
            try await client.waitUntil { client.bridgeIsClosed }
            let goAways = try await client.onLoop { $0.events.goAways.map(\.debug) }
            #expect(goAways == [#"{"reason":"Shutdown"}"#])
            #expect(running.server.connections.count == 0)
        }
    }

    @Test func aClientThatNeverFinishesTheHandshakeIsDisconnected() async throws {
        var configuration = ServerConfiguration(
            listeners: [.init(host: "127.0.0.1", port: 0, environment: .development)],
            certificateChainFile: TestCertificates.path("server.pem"), privateKeyFile: TestCertificates.path("server-key.pem"), threads: 1
        )
        configuration.tlsHandshakeTimeout = .milliseconds(200)
        let server = try PushlabServer(configuration: configuration, service: RecordingService())
        let port = try await server.start()[0].port
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let silent = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
        try await silent.closeFuture.get()  // closed by the server, or this test would hang
        #expect(!silent.isActive)
        await server.shutdown()
        try await group.shutdownGracefully()
    }

    @Test func missingCertificateFailsAtStartWithThePath() {
        let configuration = ServerConfiguration(certificateChainFile: "/nope/server.pem", privateKeyFile: "/nope/key.pem")
        #expect { try PushlabServer(configuration: configuration, service: RecordingService()) } throws: { "\($0)".contains("/nope/server.pem") }
    }

    @Test func portInUseNamesTheListenerAndItsAddress() async throws {
        let (server, dev, _) = try await startServer(RecordingService())
        let clash = ServerConfiguration(
            listeners: [.init(host: "127.0.0.1", port: dev, environment: .development)],
            certificateChainFile: TestCertificates.path("server.pem"), privateKeyFile: TestCertificates.path("server-key.pem"), threads: 1
        )
        let second = try PushlabServer(configuration: clash, service: RecordingService())
        let error = await #expect(throws: ListenerUnavailable.self) { try await second.start() }
        #expect(error?.addressInUse == true)
        #expect(error?.description == "The development listener cannot listen on 127.0.0.1:\(dev): the address is in use")
        await second.shutdown()
        await server.shutdown()
    }
}

extension TLSTestClient {
    var bridgeIsClosed: Bool { !channel.isActive }
}
