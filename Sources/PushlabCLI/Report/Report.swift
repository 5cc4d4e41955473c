import ArgumentParser
import Foundation
import PushlabCore

struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what each provider did, and what of it Apple warns against.",
        discussion: """
        The provider report of a running pushlab serve (GET /v1/report): per provider (signing key \
        or client certificate) its rate, concurrency, connections, latency as it saw it, answers, \
        retries, pushes to tokens answered 410, provider tokens and 429s, then its findings, each \
        with Apple's rule and where Apple states it. The server records once asked (--start, \
        pushlab serve --report, a scenario's report: true). docs/LOAD-TESTING.md explains each figure.

        Examples:
          pushlab report --start
          pushlab report
          pushlab report --provider PUSHLAB001 --json | jq .providers[0].findings
          pushlab report --fail-on-findings     # exit 1 when a provider has a finding (for CI)
        """
    )

    @Option(help: "The control API of the running pushlab serve.")
    var control = "http://127.0.0.1:2198"

    @Option(help: "Only this provider: a key id, team id, provider id (key:…) or part of a certificate subject.")
    var provider: String?

    @Flag(help: "The report as the control API serves it.")
    var json = false

    @Flag(help: "Start recording first (what was recorded stays).")
    var start = false

    @Flag(help: "Stop recording afterwards.")
    var stop = false

    @Flag(help: "Forget what was recorded first (recording goes on if it was on).")
    var clear = false

    @Flag(help: "Exit with status 1 when the report has a finding.")
    var failOnFindings = false

    func validate() throws {
        if start && stop { throw ValidationError("--start and --stop cannot be given together") }
    }

    func run() async throws {
        if clear { _ = try await ControlRequest.json("DELETE", control, "/v1/report") }
        if start { _ = try await ControlRequest.json("PUT", control, "/v1/report", body: #"{"recording":true}"#) }
        let path = "/v1/report" + (provider.map { "?provider=\(ControlRequest.query($0))" } ?? "")
        let report = try await ControlRequest.json("GET", control, path)
        if stop { _ = try await ControlRequest.json("PUT", control, "/v1/report", body: #"{"recording":false}"#) }
        let output = json ? report.description + "\n" : ReportText(report, terminal: Terminal.standardOutput, provider: provider).text
        FileHandle.standardOutput.write(Data(output.utf8))
        if failOnFindings, let findings = report["findings"]?.integerValue, findings > 0 { throw ExitCode(1) }
    }
}
