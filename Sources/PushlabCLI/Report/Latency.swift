import ArgumentParser
import Foundation
import PushlabCore

struct Latency: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or change how long a running pushlab serve takes to answer (its latency profile).",
        discussion: """
        With no option, prints the profile (GET /v1/latency). --set takes a shipped profile by name \
        (\(LatencyProfile.presets.map(\.name).joined(separator: ", "))) or a YAML or JSON file spelled as a \
        scenario's policy.latency (docs/SCENARIOS.md); --off answers as fast as Pushlab can again. A \
        change applies to connections opened after it; a reset goes back to the scenario's.

        Examples:
          pushlab latency --set apple-like
          pushlab latency --set my-latency.yaml
          pushlab latency --off
        """
    )

    @Option(help: "The control API of the running pushlab serve.")
    var control = "http://127.0.0.1:2198"

    @Option(help: "A shipped profile's name, or a YAML/JSON file with a policy.latency.")
    var set: String?

    @Flag(help: "No latency profile.")
    var off = false

    func validate() throws {
        if set != nil && off { throw ValidationError("--set and --off cannot be given together") }
        if let set, LatencyProfile.preset(named: set) == nil, !FileManager.default.fileExists(atPath: set) {
            throw ValidationError("--set takes \(LatencyProfile.presets.map(\.name).joined(separator: " or ")) or a file; \(set) is neither")
        }
    }

    func run() async throws {
        let answer: JSONValue
        if off {
            answer = try await ControlRequest.json("DELETE", control, "/v1/latency")
        } else if let set {
            answer = try await ControlRequest.json("PUT", control, "/v1/latency", body: try Self.body(for: set))
        } else {
            answer = try await ControlRequest.json("GET", control, "/v1/latency")
        }
        let text = answer["latency"].flatMap { $0 == .null ? nil : $0.description } ?? "off: answers as fast as Pushlab can"
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// The `PUT /v1/latency` body for a preset name or a file (read as `--latency` reads it; the
    /// server checks the profile).
    static func body(for setting: String) throws -> String {
        if LatencyProfile.preset(named: setting) != nil { return JSONValue.object([("preset", .string(setting))]).description }
        let profile = try LatencySetting.node(in: setting, option: "--set").jsonValue
        guard profile.isObject else { throw CLIFailure("\(setting) does not hold a latency profile as a mapping") }
        return profile.description
    }
}
