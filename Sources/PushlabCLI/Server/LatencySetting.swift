import ArgumentParser
import Foundation
import PushlabCore
import PushlabScenario
import Yams

/// `--latency`, the config file's `latency` and `pushlab latency --set`: a shipped profile by
/// name, or a YAML or JSON file holding a profile as a scenario's `policy.latency` spells it (the
/// whole scenario will do).
enum LatencySetting {
    static func profile(from setting: String) throws -> LatencyProfile {
        if let preset = LatencyProfile.preset(named: setting) { return preset }
        let latency = try node(in: setting, option: "--latency")
        do {
            let file = try YAMLDecoder().decode(LatencyFile.self, from: latency)
            if let problem = file.problem { throw ValidationError("\(setting): \(problem)") }
            return file.profile
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(setting) is not a latency profile: \(error)")
        }
    }

    /// The profile in the file at `path`: its `policy.latency`, its `latency`, or the whole file.
    /// `option` names the setting in the error.
    static func node(in path: String, option: String) throws -> Node {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("\(option) takes \(LatencyProfile.presets.map(\.name).joined(separator: " or ")) or a file; \(path) is neither")
        }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read \(path): \(error.localizedDescription)")
        }
        guard let root = try? Yams.compose(yaml: text) else { throw ValidationError("\(path) is empty, or not YAML or JSON") }
        if let nested = root.mapping?["policy"]?.mapping?["latency"] { return nested }
        return root.mapping?["latency"] ?? root
    }
}
