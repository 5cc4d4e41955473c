import NIOCore
import NIOPosix
import PushlabCore
import PushlabSimulator
import PushlabTransport
import Testing

/// The APNs rules, the transport and the simulator together, driven by a real TLS + HTTP/2
/// client over loopback: what a provider sees and what the phone records agree.
@Suite("Simulated devices behind a real server")
struct SimulatedDeviceOverTLSTests {
    private func withServer(_ service: APNsProviderService, _ body: (Int, MultiThreadedEventLoopGroup) async throws -> Void) async throws {
        let configuration = ServerConfiguration(
            listeners: [.init(host: "127.0.0.1", port: 0, environment: .development)],
            certificateChainFile: TestCertificates.path("server.pem"),
            privateKeyFile: TestCertificates.path("server-key.pem"),
            clientCertificateAuthoritiesFile: TestCertificates.path("ca.pem"),
            threads: 1, shutdownGracePeriod: .seconds(2)
        )
        let server = try PushlabServer(configuration: configuration, service: service)
        let port = try await server.start()[0].port
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await body(port, group)
        } catch {
            await server.shutdown()
            try? await group.shutdownGracefully()
            throw error
        }
        await server.shutdown()
        try await group.shutdownGracefully()
    }

    @Test func reinstallMakesTheOldToken410WithTheReinstallTime() async throws {
        // Now, not the manual clock's default date: the test certificates must be valid.
        let clock = ManualClock(SystemClock().now())
        let world = APNsWorld(apps: [AppRecord(bundleID: "com.pushlab.demo", teamID: "TEAMPUSHLB")])
        let simulator = DeviceSimulator(world: world, clock: clock)
        let log = InMemoryObservationLog()
        simulator.addSink(log)
        let device = try simulator.addDevice(SimulatedDevice(id: "phone", apps: [
            AppInstall(bundleID: "com.pushlab.demo", deviceToken: "", state: .background),
        ]))
        let oldToken = device.apps[0].deviceToken
        let service = APNsProviderService(world: world, clock: clock, sink: simulator)

        try await withServer(service) { port, group in
            // A single-topic certificate (com.pushlab.demo): certificate auth needs no apns-topic.
            let client = try await TLSTestClient.connect(port: port, group: group, certificate: "client-single-topic")
            let first = try await client.send(path: "/3/device/\(oldToken)", body: #"{"aps":{"alert":"before"}}"#)
            #expect(first.status == "200")
            let apnsID = try #require(first.headers.value(of: "apns-id"))
            #expect(log.observations(device: "phone", kind: .banner).map(\.notificationID) == [apnsID])

            clock.advance(seconds: 90)
            let reinstalledAt = clock.now()
            let newToken = try simulator.reinstall("com.pushlab.demo", on: "phone").deviceToken
            clock.advance(seconds: 5)

            let stale = try await client.send(path: "/3/device/\(oldToken)", body: #"{"aps":{"alert":"after"}}"#)
            #expect(stale.status == "410")
            #expect(stale.body == #"{"reason":"Unregistered","timestamp":\#(reinstalledAt)}"#)

            let fresh = try await client.send(path: "/3/device/\(newToken)", body: #"{"aps":{"alert":"again"}}"#)
            #expect(fresh.status == "200")
            #expect(log.observations(device: "phone", kind: .banner).count == 2)
        }
    }
}
