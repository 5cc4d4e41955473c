import PushlabCore
import PushlabScenario

extension StepResult {
    /// `✓ 3 send alert to ann  200` and, for a failed step, what did not hold and what was seen.
    func lines(_ terminal: Terminal, verbose: Bool) -> [String] {
        let mark = switch outcome {
        case .passed: terminal.paint("✓", .green)
        case .failed: terminal.paint("✗", .red)
        case .skipped: terminal.paint("-", .yellow)
        }
        var head = "  \(mark) \(number). \(title)"
        if let answer { head += terminal.paint("  → \(answer.summary)", .dim) }
        if outcome == .skipped { head += terminal.paint("  (skipped)", .yellow) }
        var lines = [head]
        for failure in failures { lines.append("      " + terminal.paint(failure, .red)) }
        if outcome == .failed || verbose, !observations.isEmpty {
            lines.append("      " + terminal.paint("observed:", .dim))
            lines += observations.map { "        " + Self.describe($0) }
        }
        return lines
    }

    /// One observation on one line, the fields a developer reads first.
    static func describe(_ observation: JSONValue) -> String {
        let skipped: Set = ["sequence", "timeMs", "message"]
        let device = observation["deviceId"]?.stringValue ?? "?"
        let kind = observation["kind"]?.stringValue ?? "?"
        guard case .object(let members) = observation else { return observation.description }
        let details = members.filter { !skipped.contains($0.key) && !["deviceId", "kind", "bundleId", "notificationId"].contains($0.key) }
            .map { member in
                let text = member.value.stringValue ?? member.value.description
                return "\(member.key)=\(text.count > 90 ? text.prefix(89) + "…" : text)"
            }
        return "\(device) \(kind.padding(toLength: 18, withPad: " ", startingAt: 0)) \(details.joined(separator: " "))"
    }
}

extension ScenarioReport {
    func summaryLine(_ terminal: Terminal) -> String {
        if passed { return terminal.paint("PASS", .green) + " \(scenario) (\(steps.count) steps)" }
        let skipped = steps.filter { $0.outcome == .skipped }.count
        let rest = skipped > 0 ? ", \(skipped) skipped" : ""
        return terminal.paint("FAIL", .red) + " \(scenario): \(failedCount) of \(steps.count) steps failed\(rest)"
    }
}
