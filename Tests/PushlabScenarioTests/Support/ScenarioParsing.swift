import PushlabScenario

/// Scenario text parsed as if it were the file at `source`, and the error it gives, for the
/// scenario-file tests.
enum ScenarioParsing {
    static func parse(_ yaml: String, source: String) throws -> Scenario {
        try Scenario.parse(yaml: yaml, source: source)
    }

    /// The readable error the text gives, or "" when it parses.
    static func error(_ yaml: String, source: String) -> String {
        do {
            _ = try parse(yaml, source: source)
            return ""
        } catch {
            return "\(error)"
        }
    }
}
