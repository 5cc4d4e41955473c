import PushlabCore

/// What `pushlab run` found: each step's outcome, in order.
public struct ScenarioReport: Sendable {
    public var scenario: String
    public var source: String
    public var steps: [StepResult]

    public init(scenario: String, source: String, steps: [StepResult]) {
        self.scenario = scenario
        self.source = source
        self.steps = steps
    }

    public var passed: Bool { steps.allSatisfy { $0.outcome == .passed } }
    public var failedCount: Int { steps.filter { $0.outcome == .failed }.count }

    /// The report as JSON (`pushlab run --json`).
    public var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("scenario", scenario)
        writer.field("source", source)
        writer.field("passed", passed)
        writer.key("steps")
        writer.value(.array(steps.map(\.jsonValue)))
        writer.endObject()
        return writer.text
    }
}

public struct StepResult: Sendable {
    public enum Outcome: String, Sendable {
        case passed, failed
        /// Not run: an earlier step could not be carried out.
        case skipped
    }

    /// 1-based.
    public var number: Int
    public var title: String
    public var outcome: Outcome
    /// What did not hold, or why the step could not run.
    public var failures: [String]
    public var answer: APNsAnswer?
    /// What the devices observed during the step, oldest first.
    public var observations: [JSONValue]

    public init(number: Int, title: String, outcome: Outcome, failures: [String], answer: APNsAnswer? = nil, observations: [JSONValue]) {
        self.number = number
        self.title = title
        self.outcome = outcome
        self.failures = failures
        self.answer = answer
        self.observations = observations
    }

    var jsonValue: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("number", .number(Double(number))), ("title", .string(title)), ("outcome", .string(outcome.rawValue)),
            ("failures", .array(failures.map(JSONValue.string))),
        ]
        if let answer {
            var fields: [(key: String, value: JSONValue)] = [("status", .number(Double(answer.status)))]
            if let reason = answer.reason { fields.append(("reason", .string(reason))) }
            if let timestamp = answer.timestamp { fields.append(("timestamp", .number(Double(timestamp)))) }
            if let apnsID = answer.apnsID { fields.append(("apnsId", .string(apnsID))) }
            members.append(("answer", .object(fields)))
        }
        members.append(("observations", .array(observations)))
        return .object(members)
    }
}
