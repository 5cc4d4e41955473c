import ArgumentParser
import Foundation
import Logging
import PushlabCore
import PushlabScenario

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run scenario files: their steps against Pushlab, with a pass/fail report.",
        discussion: """
        Each file gets a fresh in-process server (both APNs listeners and the control API on free \
        loopback ports, a manual clock, nothing stored), unless --server names a running pushlab \
        serve: its world is then replaced by the scenario's (POST /v1/scenario) and left as the run \
        leaves it, for a look with pushlab observations; POST /v1/reset goes back.

        Steps send pushes through Pushlab's own HTTP/2 client over TLS and drive devices, apps, the \
        clock and fault rules through the control API; each step's expectations are checked on \
        APNs's answer and on what the devices observed during the step. docs/SCENARIOS.md \
        describes the format. Exit status: 0 when every step of every file holds, 1 otherwise.

        Examples:
          pushlab run scenarios/problems/tap-app-icon-loses-payload.yaml
          pushlab run scenarios/problems/*.yaml
          pushlab run --server http://127.0.0.1:2198 my-scenario.yaml
          pushlab run scenarios/problems/*.yaml --json | jq '.scenarios[] | select(.passed == false)'
        """
    )

    @Argument(help: "Scenario files (YAML) with steps.")
    var files: [String]

    @Option(help: "The control API of a running pushlab serve to run against (default: a fresh in-process server per file).")
    var server: String?

    @Option(help: "CA bundle the server's certificate is checked against (default certs/ca.pem).")
    var ca: String?

    @Option(help: "In-process server: its certificate chain, PEM (default certs/server.pem).")
    var tlsCert: String?

    @Option(help: "In-process server: its private key, PEM (default certs/server-key.pem).")
    var tlsKey: String?

    @Option(help: "In-process server: the CA bundle client certificates are verified against (default certs/ca.pem).")
    var clientCa: String?

    @Flag(help: "Show what was observed during every step, not only failed ones.")
    var verbose = false

    @Flag(help: "Print one JSON report instead of text.")
    var json = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one scenario file") }
        if let server, URL(string: server)?.scheme?.hasPrefix("http") != true {
            throw ValidationError("--server must be the control API's URL, like http://127.0.0.1:2198, not \(server)")
        }
    }

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let terminal = Terminal.standardOutput
        let trusted = ca ?? DefaultFiles.path("certs/ca.pem")
        let tls = InProcessPushlab.TLSFiles(
            certificate: tlsCert ?? DefaultFiles.path("certs/server.pem"), key: tlsKey ?? DefaultFiles.path("certs/server-key.pem"),
            clientCA: clientCa ?? (DefaultFiles.exists("certs/ca.pem") ? DefaultFiles.path("certs/ca.pem") : nil)
        )
        for path in [trusted] + (server == nil ? [tls.certificate, tls.key] : []) where !FileManager.default.fileExists(atPath: path) {
            throw CLIFailure("\(path) does not exist: run pushlab from the repository root, or pass --ca (and --tls-cert, --tls-key)")
        }
        var reports: [ScenarioReport] = []
        var unloadable: [(path: String, message: String)] = []
        for path in files {
            let scenario: Scenario
            do {
                scenario = try Scenario.load(path: path)
            } catch {
                unloadable.append((path, "\(error)"))
                if !json { terminal.write(terminal.paint("FAIL", .red) + " \(path): \(error)") }
                continue
            }
            if !json {
                terminal.write(terminal.paint(scenario.name, .bold) + terminal.paint("  \(path)", .dim))
                terminal.progress("  starting Pushlab…")
            }
            let report = await run(scenario, tls: tls, trusted: trusted, terminal: terminal)
            reports.append(report)
            if !json {
                terminal.clearProgress()
                terminal.write(report.summaryLine(terminal))
            }
        }
        if json {
            print(Self.json(reports, unloadable: unloadable))
        } else if files.count > 1 {
            let passed = reports.filter(\.passed).count
            let line = "\(passed) of \(files.count) scenarios passed"
            terminal.write(passed == files.count ? terminal.paint(line, .green) : terminal.paint(line, .red))
        }
        if !unloadable.isEmpty || reports.contains(where: { !$0.passed }) { throw ExitCode(1) }
    }

    private func run(_ scenario: Scenario, tls: InProcessPushlab.TLSFiles, trusted: String, terminal: Terminal) async -> ScenarioReport {
        let verbose = verbose, json = json
        let progress: @Sendable (StepResult) -> Void = { result in
            guard !json else { return }
            terminal.clearProgress()
            for line in result.lines(terminal, verbose: verbose) { terminal.write(line) }
        }
        let failed = { (message: String) in
            let start = StepResult(number: 1, title: "start", outcome: .failed, failures: [message], observations: [])
            progress(start)
            return ScenarioReport(scenario: scenario.name, source: scenario.source, steps: [start])
        }
        if let server {
            let driver = ControlAPIDriver(controlURL: server, trustedCA: trusted)
            do {
                let absolute = URL(fileURLWithPath: scenario.source).standardizedFileURL.path
                _ = try await driver.control(.post, "/v1/scenario", body: .object([("path", .string(absolute))]))
            } catch {
                return failed("Loading the scenario into \(server) failed: \(error)")
            }
            return await ScenarioRunner(scenario: scenario, driver: driver).run(progress: progress)
        }
        let pushlab: InProcessPushlab
        do {
            pushlab = try await InProcessPushlab.start(scenario, tls: tls, logger: Logger(label: "pushlab.run"))
        } catch {
            return failed("Starting Pushlab failed: \(error)")
        }
        let driver = ControlAPIDriver(controlURL: pushlab.controlURL, trustedCA: trusted)
        let report = await ScenarioRunner(scenario: scenario, driver: driver).run(progress: progress)
        await pushlab.stop()
        return report
    }

    static func json(_ reports: [ScenarioReport], unloadable: [(path: String, message: String)]) -> String {
        let passed = unloadable.isEmpty && reports.allSatisfy(\.passed)
        let scenarios = reports.map(\.json).joined(separator: ",")
        let errors = unloadable.map { entry in
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("source", entry.path)
            writer.field("passed", false)
            writer.field("error", entry.message)
            writer.endObject()
            return writer.text
        }.joined(separator: ",")
        let all = [scenarios, errors].filter { !$0.isEmpty }.joined(separator: ",")
        return #"{"passed":\#(passed),"scenarios":[\#(all)]}"#
    }
}
