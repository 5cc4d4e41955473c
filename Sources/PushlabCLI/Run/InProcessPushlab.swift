import Foundation
import Logging
import PushlabCore
import PushlabRuntime
import PushlabScenario
import PushlabTransport

/// A whole Pushlab inside `pushlab run`: both APNs listeners and the control API on free
/// loopback ports, a manual clock, nothing stored, pushes delivered through the queue as
/// `pushlab serve` delivers them. Each scenario gets a fresh one.
struct InProcessPushlab {
    let controlURL: String
    private let runtime: PushlabRuntime

    struct TLSFiles {
        var certificate: String
        var key: String
        var clientCA: String?
    }

    static func start(_ scenario: Scenario, tls: TLSFiles, logger: Logger) async throws -> InProcessPushlab {
        let cores = try PushlabCores(scenario: scenario, manualStart: scenario.script?.clockStart ?? SystemClock().now())
        let configuration = RuntimeConfiguration(
            server: ServerConfiguration(
                listeners: [
                    .init(host: "127.0.0.1", port: 0, environment: .development),
                    .init(host: "127.0.0.1", port: 0, environment: .production),
                ],
                certificateChainFile: tls.certificate, privateKeyFile: tls.key, clientCertificateAuthoritiesFile: tls.clientCA,
                threads: 1, shutdownGracePeriod: .seconds(1)
            ),
            control: .init(port: 0)
        )
        let runtime: PushlabRuntime
        do {
            runtime = try await PushlabRuntime.start(cores, configuration: configuration, logger: logger)
        } catch {
            throw CLIFailure("Pushlab cannot start on 127.0.0.1: \(error)")
        }
        guard let control = runtime.controlServer else { throw CLIFailure("The control API did not start") }
        return InProcessPushlab(controlURL: control.url, runtime: runtime)
    }

    func stop() async {
        try? await runtime.shutdown()
    }
}
