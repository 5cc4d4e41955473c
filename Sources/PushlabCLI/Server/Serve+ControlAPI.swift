import ArgumentParser
import Logging
import PushlabControl
import PushlabCore
import PushlabScenario
import PushlabSimulator

/// `pushlab serve`'s control API: where it listens, and what a reset puts back.
extension Serve {
    static let defaultControlPort = 2198

    /// Starts the control API. A busy default port is not fatal (another pushlab may hold it):
    /// the banner says so. A port given with --control-port or in the config file must bind.
    func startControlServer(_ api: ControlAPI, file: ServeConfigurationFile?, logger: Logger) async throws -> ControlServerState {
        let host = controlHost ?? file?.controlHost ?? "127.0.0.1"
        let requestedPort = controlPort ?? file?.controlPort
        let port = requestedPort ?? Self.defaultControlPort
        do {
            return .running(try await ControlServer.start(api: api, host: host, port: port, logger: Logger(label: "pushlab.control")))
        } catch {
            if requestedPort != nil {
                throw ValidationError("The control API cannot listen on \(host):\(port): \(error). Pass --control-port 0 for a free port.")
            }
            logger.warning("The control API is not running: \(host):\(port) cannot be bound (\(error))")
            return .notStarted(host: host, port: port)
        }
    }
}

/// The control API as the banner reports it.
enum ControlServerState {
    case running(ControlServer)
    case notStarted(host: String, port: Int)

    var bannerLine: String {
        switch self {
        case .running(let server):
            "  control API  \(server.url)"
        case .notStarted(let host, let port):
            "  control API  not running: \(host):\(port) cannot be bound (pass --control-port 0 for a free port)"
        }
    }
}
