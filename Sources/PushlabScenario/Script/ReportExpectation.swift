import PushlabCore

/// A `report` step: what the provider report (`GET /v1/report`) must say at this point of the
/// run, so that a provider's CI fails on a finding (docs/LOAD-TESTING.md):
///
/// ```yaml
/// - report:
///     provider: PUSHLAB001            # optional: key id, team id, or part of a certificate subject
///     findings: [duplicate-push]      # each must be found
///     noFindings: true                # or a list: none of these may be found
///     atMost: {connectionsOpened: 1, retries: 0, pushesAfter410: 0}
///     atLeast: {requests: 10}
/// ```
///
/// Figures add up over the providers the step covers (all, or the one it names).
public struct ReportExpectation: Sendable, Equatable {
    public enum NoFindings: Sendable, Equatable {
        case none
        case all
        case these([String])
    }

    public var provider: String?
    public var findings: [String] = []
    public var noFindings: NoFindings = .none
    public var atMost: [(figure: Figure, limit: Double)] = []
    public var atLeast: [(figure: Figure, limit: Double)] = []

    public static func == (lhs: ReportExpectation, rhs: ReportExpectation) -> Bool {
        lhs.provider == rhs.provider && lhs.findings == rhs.findings && lhs.noFindings == rhs.noFindings
            && lhs.atMost.elementsEqual(rhs.atMost) { $0 == $1 } && lhs.atLeast.elementsEqual(rhs.atLeast) { $0 == $1 }
    }

    /// The figures a step may bound, each read from a provider of the report.
    public enum Figure: String, Sendable, CaseIterable {
        case requests, connectionsOpened, retries, duplicates, pushesAfter410, providerTokens, tooManyRequests, pushesSoonAfter429
        case serverErrors, peakConcurrency, latencyP50Ms, latencyP99Ms

        /// Summed over providers, except the peaks and percentiles (the highest of them).
        func value(of provider: JSONValue) -> Double {
            switch self {
            case .requests: provider["requests"]?.numberValue ?? 0
            case .connectionsOpened: provider["connections"]?["opened"]?.numberValue ?? 0
            case .retries: provider["retries"]?["total"]?.numberValue ?? 0
            case .duplicates: provider["retries"]?["afterSuccess"]?.numberValue ?? 0
            case .pushesAfter410: provider["pushesAfter410"]?.numberValue ?? 0
            case .providerTokens: provider["providerTokens"]?["distinct"]?.numberValue ?? 0
            case .tooManyRequests: provider["tooManyRequests"]?["answers"]?.numberValue ?? 0
            case .pushesSoonAfter429: provider["tooManyRequests"]?["pushesTooSoon"]?.numberValue ?? 0
            case .serverErrors: Self.serverErrors(provider)
            case .peakConcurrency: provider["concurrency"]?["peak"]?.numberValue ?? 0
            case .latencyP50Ms: provider["latencyMs"]?["p50"]?.numberValue ?? 0
            case .latencyP99Ms: provider["latencyMs"]?["p99"]?.numberValue ?? 0
            }
        }

        var isSummed: Bool { ![.peakConcurrency, .latencyP50Ms, .latencyP99Ms].contains(self) }

        private static func serverErrors(_ provider: JSONValue) -> Double {
            guard case .object(let statuses)? = provider["statuses"] else { return 0 }
            return statuses.filter { (Int($0.key) ?? 0) >= 500 }.reduce(0) { $0 + ($1.value.numberValue ?? 0) }
        }
    }

    public init() {}

    /// The report path the step reads.
    var path: String {
        "/v1/report" + (provider.map { "?provider=\(PercentEncoding.encode($0))" } ?? "")
    }

    static func parse(_ value: JSONValue, place: String) throws(ScenarioScriptError) -> ReportExpectation {
        var fields = try StepFields(value, place: place)
        var expectation = ReportExpectation()
        expectation.provider = try fields.string("provider")
        let known = Set(ProviderFinding.Kind.allCases.map(\.rawValue))
        func findingIDs(_ value: JSONValue, _ key: String) throws(ScenarioScriptError) -> [String] {
            guard case .array(let items) = value else { throw ScenarioScriptError("\(place).\(key) must be a list of finding ids") }
            var ids: [String] = []
            for item in items {
                guard let id = item.stringValue, known.contains(id) else {
                    throw ScenarioScriptError("\(place).\(key): \(item) is not a finding; they are \(known.sorted().joined(separator: ", "))")
                }
                ids.append(id)
            }
            return ids
        }
        if let value = fields.value("findings") { expectation.findings = try findingIDs(value, "findings") }
        switch fields.value("noFindings") {
        case nil, .bool(false)?: break
        case .bool(true)?: expectation.noFindings = .all
        case let value?: expectation.noFindings = .these(try findingIDs(value, "noFindings"))
        }
        expectation.atMost = try bounds(fields.value("atMost"), place: "\(place).atMost")
        expectation.atLeast = try bounds(fields.value("atLeast"), place: "\(place).atLeast")
        try fields.checkAllRead()
        if expectation.findings.isEmpty && expectation.noFindings == .none && expectation.atMost.isEmpty && expectation.atLeast.isEmpty {
            throw ScenarioScriptError("\(place) expects nothing: give findings, noFindings, atMost or atLeast")
        }
        return expectation
    }

    private static func bounds(_ value: JSONValue?, place: String) throws(ScenarioScriptError) -> [(figure: Figure, limit: Double)] {
        guard let value else { return [] }
        guard case .object(let members) = value else { throw ScenarioScriptError("\(place) must map figures to numbers") }
        var bounds: [(figure: Figure, limit: Double)] = []
        for (key, limit) in members {
            guard let figure = Figure(rawValue: key) else {
                throw ScenarioScriptError("\(place).\(key) is not a figure; they are \(Figure.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard let number = limit.numberValue, number >= 0 else { throw ScenarioScriptError("\(place).\(key) must be a number, 0 or more") }
            bounds.append((figure, number))
        }
        return bounds
    }

    /// Every way `report` falls short; empty when the step passed.
    func failures(in report: JSONValue) -> [String] {
        guard case .array(let providers)? = report["providers"] else { return ["the control API's report has no providers list: \(report)"] }
        var failures: [String] = []
        if report["recording"] != .bool(true) { failures.append("the server is not recording the provider report") }
        let scope = provider.map { "provider \($0)" } ?? "the providers"
        if providers.isEmpty, provider != nil { failures.append("no requests from \(scope)") }
        var found: [String: (count: Int, examples: [String])] = [:]
        for provider in providers {
            guard case .array(let findings)? = provider["findings"] else { continue }
            for finding in findings {
                guard let id = finding["id"]?.stringValue else { continue }
                let count = Int(finding["count"]?.numberValue ?? 0)
                let examples: [String] = if case .array(let items)? = finding["examples"] { items.compactMap(\.stringValue) } else { [] }
                found[id, default: (0, [])].count += count
                found[id]!.examples += examples
            }
        }
        for id in findings where found[id] == nil {
            failures.append("expected the finding \(id) for \(scope); the report has \(found.isEmpty ? "none" : found.keys.sorted().joined(separator: ", "))")
        }
        let forbidden: [String] = switch noFindings {
        case .none: []
        case .all: found.keys.sorted()
        case .these(let ids): ids.filter { found[$0] != nil }
        }
        for id in forbidden {
            let example = found[id]!.examples.first.map { ", e.g. \($0)" } ?? ""
            failures.append("expected no finding \(id) for \(scope), but found \(found[id]!.count)\(example)")
        }
        func value(_ figure: Figure) -> Double {
            let values = providers.map(figure.value(of:))
            return figure.isSummed ? values.reduce(0, +) : values.max() ?? 0
        }
        for (figure, limit) in atMost where value(figure) > limit {
            failures.append("expected \(figure.rawValue) at most \(Self.spell(limit)) for \(scope), got \(Self.spell(value(figure)))")
        }
        for (figure, limit) in atLeast where value(figure) < limit {
            failures.append("expected \(figure.rawValue) at least \(Self.spell(limit)) for \(scope), got \(Self.spell(value(figure)))")
        }
        return failures
    }

    static func spell(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
}
