import Foundation
import Logging
import PushlabControl
import PushlabCore
import PushlabScenario
import PushlabTransport

/// A whole Pushlab inside `pushlab run`: both APNs listeners and the control API on free
/// loopback ports, a manual clock, nothing stored. Each scenario gets a fresh one.
struct InProcessPushlab {
    let controlURL: String
    private let server: PushlabServer
    private let control: ControlServer

    struct TLSFiles {
        var certificate: String
        var key: String
        var clientCA: String?
    }

    static func start(_ scenario: Scenario, tls: TLSFiles, logger: Logger) async throws -> InProcessPushlab {
        let start = scenario.script?.clockStart ?? SystemClock().now()
        let assembly = try PushlabAssembly(scenario: scenario, manualStart: start)
        let api = assembly.controlAPI(store: nil)
        let configuration = ServerConfiguration(
            listeners: [
                .init(host: "127.0.0.1", port: 0, environment: .development),
                .init(host: "127.0.0.1", port: 0, environment: .production),
            ],
            certificateChainFile: tls.certificate, privateKeyFile: tls.key, clientCertificateAuthoritiesFile: tls.clientCA,
            threads: 1, shutdownGracePeriod: .seconds(1)
        )
        let server = try PushlabServer(configuration: configuration, service: api.metrics.measuring(assembly.service), logger: logger)
        let bound: [PushlabServer.BoundListener]
        do {
            bound = try await server.start()
        } catch {
            await server.shutdown()
            throw CLIFailure("Pushlab cannot listen on 127.0.0.1: \(error)")
        }
        api.setListeners(bound)
        let control: ControlServer
        do {
            control = try await ControlServer.start(api: api, host: "127.0.0.1", port: 0, logger: logger)
        } catch {
            await server.shutdown()
            throw CLIFailure("The control API cannot listen on 127.0.0.1: \(error)")
        }
        return InProcessPushlab(controlURL: control.url, server: server, control: control)
    }

    func stop() async {
        await control.stop()
        await server.shutdown()
    }
}
