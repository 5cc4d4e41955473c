import ArgumentParser
import Foundation
import PushlabCore
import PushlabScenario
import Yams

/// `--latency` (and the config file's `latency`): a shipped profile by name, or a YAML or JSON
/// file holding a profile as a scenario's `policy.latency` spells it (the whole scenario will do).
enum LatencySetting {
    static func profile(from setting: String) throws -> LatencyProfile {
        if let preset = LatencyProfile.preset(named: setting) { return preset }
        guard FileManager.default.fileExists(atPath: setting) else {
            throw ValidationError("--latency takes \(LatencyProfile.presets.map(\.name).joined(separator: " or ")) or a file; \(setting) is neither")
        }
        let text: String
        do {
            text = try String(contentsOfFile: setting, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read \(setting): \(error.localizedDescription)")
        }
        do {
            let node = try Yams.compose(yaml: text)
            var latency = node
            if let policy = node?.mapping?["policy"], let nested = policy.mapping?["latency"] { latency = nested }
            if let nested = node?.mapping?["latency"] { latency = nested }
            guard let latency else { throw ValidationError("\(setting) is empty") }
            let file = try YAMLDecoder().decode(LatencyFile.self, from: latency)
            if let problem = file.problem { throw ValidationError("\(setting): \(problem)") }
            return file.profile
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(setting) is not a latency profile: \(error)")
        }
    }
}
