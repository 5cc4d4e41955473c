import PushlabCore

/// A scenario's script: where the clock starts and the steps to run (`pushlab run`).
public struct ScenarioScript: Sendable {
    /// The manual clock's start; nil leaves the server's clock where it is and stops it there.
    public var clockStart: EpochMilliseconds?
    public var steps: [ScenarioStep]

    static func parse(steps value: JSONValue?, clockStart: EpochMilliseconds?) throws(ScenarioScriptError) -> ScenarioScript? {
        guard let value else { return clockStart.map { ScenarioScript(clockStart: $0, steps: []) } }
        guard case .array(let items) = value else { throw ScenarioScriptError("steps must be a list") }
        var steps: [ScenarioStep] = []
        for (index, item) in items.enumerated() {
            steps.append(try ScenarioStep.parse(item, place: "steps[\(index)]"))
        }
        return ScenarioScript(clockStart: clockStart, steps: steps)
    }
}
