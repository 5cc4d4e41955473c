import Foundation
import PushlabCore

/// The provider report for people: a block per provider, its findings last, then the connections.
struct ReportText {
    let report: JSONValue
    let terminal: Terminal
    let provider: String?

    init(_ report: JSONValue, terminal: Terminal, provider: String?) {
        self.report = report
        self.terminal = terminal
        self.provider = provider
    }

    var text: String {
        var lines: [String] = []
        let recording = report["recording"] == .bool(true)
        let since = report["since"]?.stringValue.map { " since \($0)" } ?? ""
        lines.append(terminal.paint("Provider report\(since)", .bold) + (recording ? "" : terminal.paint("  (not recording: pushlab report --start)", .yellow)))
        guard case .array(let providers)? = report["providers"], !providers.isEmpty else {
            lines.append(provider.map { "No requests from provider \($0)." } ?? "No requests yet.")
            return lines.joined(separator: "\n") + "\n"
        }
        for provider in providers { lines += self.lines(for: provider) }
        if case .array(let connections)? = report["connections"], !connections.isEmpty {
            lines.append("")
            let followed = report["connectionsFollowed"]?.integerValue ?? Int64(connections.count)
            lines.append(terminal.paint("Connections (\(connections.count) of \(followed), open first)", .bold))
            lines.append("  id        provider              env   requests  peak  lifetime  ended")
            for connection in connections.prefix(20) { lines.append(line(forConnection: connection)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func lines(for provider: JSONValue) -> [String] {
        var lines = [""]
        lines.append(terminal.paint(provider["id"]?.stringValue ?? "?", .bold) + teamSuffix(provider))
        let requests = provider["requests"]?.integerValue ?? 0
        lines.append("  requests      \(requests)  from \(provider["firstRequest"]?.stringValue ?? "-") to \(provider["lastRequest"]?.stringValue ?? "-")")
        lines.append("  rate          \(number(provider["rate"]?["mean"]))/s mean, \(number(provider["rate"]?["peak"]))/s peak")
        let concurrency = provider["concurrency"]
        lines.append("  in flight     \(number(concurrency?["mean"])) mean, \(number(concurrency?["peak"])) peak on one connection (limit \(number(concurrency?["streamLimit"])))")
        let connections = provider["connections"]
        var connectionLine = "  connections   \(number(connections?["opened"])) opened, \(number(connections?["open"])) open"
        if let perConnection = connections?["requestsPerConnection"] {
            connectionLine += "; requests each \(number(perConnection["min"]))/\(number(perConnection["median"]))/\(number(perConnection["max"])) (min/median/max)"
        }
        lines.append(connectionLine)
        if let lifetime = connections?["lifetimeMs"] {
            lines.append("  lifetimes     \(milliseconds(lifetime["min"]))/\(milliseconds(lifetime["median"]))/\(milliseconds(lifetime["max"])) (min/median/max)")
        }
        let latency = provider["latencyMs"]
        if let count = latency?["count"]?.integerValue, count > 0 {
            lines.append("  latency       p50 \(number(latency?["p50"])) ms, p90 \(number(latency?["p90"])) ms, p99 \(number(latency?["p99"])) ms, max \(number(latency?["max"])) ms (\(count) answers)")
        }
        lines.append("  answers       \(counts(provider["statuses"]))" + (counts(provider["reasons"]).isEmpty ? "" : "; \(counts(provider["reasons"]))"))
        let retries = provider["retries"]
        if let total = retries?["total"]?.integerValue, total > 0 {
            let parts = ["afterSuccess", "afterRefusal", "afterAuthenticationFailure", "after410", "after429", "afterServerError"].compactMap { key -> String? in
                guard let count = retries?[key]?.integerValue, count > 0 else { return nil }
                return "\(count) \(key)"
            }
            lines.append("  retries       \(total) (\(parts.joined(separator: ", ")))")
        }
        if let after410 = provider["pushesAfter410"]?.integerValue, after410 > 0 { lines.append("  after 410     \(after410) pushes to tokens already answered 410") }
        let tokens = provider["providerTokens"]
        if let distinct = tokens?["distinct"]?.integerValue, distinct > 0 {
            let shortest = tokens?["shortestIntervalMs"]?.integerValue.map { ", shortest gap \(ProviderTallyText.duration($0))" } ?? ""
            lines.append("  tokens        \(distinct) provider token\(distinct == 1 ? "" : "s")\(shortest)")
        }
        let throttled = provider["tooManyRequests"]
        if let answers = throttled?["answers"]?.integerValue, answers > 0 {
            lines.append("  429s          \(answers) answered; \(number(throttled?["pushesTooSoon"])) pushes within a second after; \(number(throttled?["fasterSeconds"])) second(s) sped up after")
        }
        guard case .array(let findings)? = provider["findings"], !findings.isEmpty else {
            lines.append(terminal.paint("  no findings", .green))
            return lines
        }
        lines.append(terminal.paint("  \(findings.count) finding\(findings.count == 1 ? "" : "s"):", .red))
        for finding in findings {
            let id = finding["id"]?.stringValue ?? "?"
            let count = finding["count"]?.integerValue ?? 0
            var unit = finding["unit"]?.stringValue ?? ""
            if count == 1, unit.hasSuffix("s") { unit.removeLast() }
            lines.append(terminal.paint("  ✗ \(id)", .red) + ": \(finding["title"]?.stringValue ?? "") (\(count) \(unit))")
            lines.append("      rule: \(finding["rule"]?.stringValue ?? "")")
            lines.append("      source: \(finding["source"]?.stringValue ?? "")")
            if case .array(let examples)? = finding["examples"] {
                for example in examples { lines.append(terminal.paint("      e.g. \(example.stringValue ?? "")", .dim)) }
            }
        }
        return lines
    }

    private func line(forConnection connection: JSONValue) -> String {
        let id = pad(number(connection["id"]), 8)
        let provider = pad(connection["provider"]?.stringValue ?? "", 20)
        let environment = connection["environment"]?.stringValue == "production" ? "prod " : "dev  "
        let requests = pad(number(connection["requests"]), 8)
        let peak = pad(number(connection["peakInFlight"]), 4)
        let lifetime = pad(milliseconds(connection["lifetimeMs"]), 8)
        var ended = connection["closedAt"] == nil ? "open" : "closed"
        if let goAway = connection["goAway"]?.stringValue { ended += " after GOAWAY \(goAway)" }
        return "  \(id)  \(provider)  \(environment) \(requests)  \(peak)  \(lifetime)  \(ended)"
    }

    private func teamSuffix(_ provider: JSONValue) -> String {
        provider["teamId"]?.stringValue.map { "  (team \($0))" } ?? ""
    }

    private func counts(_ value: JSONValue?) -> String {
        guard case .object(let members)? = value else { return "" }
        return members.map { "\($0.value.integerValue ?? 0) × \($0.key)" }.joined(separator: ", ")
    }

    private func number(_ value: JSONValue?) -> String {
        guard let number = value?.numberValue else { return "-" }
        return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(format: "%.1f", number)
    }

    private func milliseconds(_ value: JSONValue?) -> String {
        guard let number = value?.numberValue else { return "-" }
        return ProviderTallyText.duration(Int64(number))
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

enum ProviderTallyText {
    /// `850 ms`, `12.3 s`, `4.5 min`, `2.0 h`.
    static func duration(_ milliseconds: Int64) -> String {
        switch milliseconds {
        case ..<1000: "\(milliseconds) ms"
        case ..<60_000: String(format: "%.1f s", Double(milliseconds) / 1000)
        case ..<3_600_000: String(format: "%.1f min", Double(milliseconds) / 60_000)
        default: String(format: "%.1f h", Double(milliseconds) / 3_600_000)
        }
    }
}
