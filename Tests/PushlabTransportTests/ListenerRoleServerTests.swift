import PushlabCore
import PushlabTransport
import Testing

/// Listeners with a role, and the default channel management listener that another server may
/// already hold.
@Suite("Listener roles over real sockets")
struct ListenerRoleServerTests {
    private func configuration(_ listeners: [ServerConfiguration.Listener]) -> ServerConfiguration {
        ServerConfiguration(
            listeners: listeners, certificateChainFile: TestCertificates.path("server.pem"),
            privateKeyFile: TestCertificates.path("server-key.pem"), threads: 1, shutdownGracePeriod: .seconds(2)
        )
    }

    @Test func boundListenersKeepTheirRole() async throws {
        let server = try PushlabServer(configuration: configuration([
            .init(host: "127.0.0.1", port: 0, environment: .development),
            .init(host: "127.0.0.1", port: 0, environment: .development, role: .channelManagement),
        ]), service: RecordingService())
        let bound = try await server.start()
        #expect(bound.map(\.role) == [.both, .channelManagement])
        await server.shutdown()
    }

    @Test func aListenerNotRequiredIsLeftOutWhenItsPortIsTaken() async throws {
        let first = try PushlabServer(configuration: configuration([
            .init(host: "127.0.0.1", port: 0, environment: .development, role: .channelManagement),
        ]), service: RecordingService())
        let taken = try await first.start()[0].port
        let second = try PushlabServer(configuration: configuration([
            .init(host: "127.0.0.1", port: 0, environment: .development),
            .init(host: "127.0.0.1", port: taken, environment: .development, role: .channelManagement, required: false),
        ]), service: RecordingService())
        let bound = try await second.start()
        #expect(bound.map(\.role) == [.both])
        let required = try PushlabServer(configuration: configuration([
            .init(host: "127.0.0.1", port: taken, environment: .development, role: .channelManagement),
        ]), service: RecordingService())
        let error = await #expect(throws: ListenerUnavailable.self) { try await required.start() }
        #expect(error?.description == "The development channel management listener cannot listen on 127.0.0.1:\(taken): the address is in use")
        await required.shutdown()
        await second.shutdown()
        await first.shutdown()
    }

    @Test func theDefaultsServeEveryAPIOn2197And2196AndChannelManagementOn2195() {
        let defaults = ServerConfiguration.defaultListeners
        #expect(defaults.map(\.port) == [2197, 2196, 2195])
        #expect(defaults.map(\.role) == [.both, .both, .channelManagement])
        #expect(defaults.map(\.environment) == [.development, .production, .development])
        #expect(defaults.map(\.required) == [true, true, false])
    }
}
