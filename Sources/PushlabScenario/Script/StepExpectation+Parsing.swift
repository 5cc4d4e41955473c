import PushlabCore
import PushlabSimulator

extension StepExpectation {
    /// Reads an `expect:` mapping.
    static func parse(_ fields: StepFields) throws(ScenarioScriptError) -> StepExpectation {
        var fields = fields
        let place = fields.place
        var expectation = StepExpectation()
        expectation.status = try fields.integer("status").map(Int.init)
        expectation.reason = try fields.string("reason")
        switch fields.value("timestamp") {
        case nil: break
        case .bool(true)?: expectation.timestamp = .present
        case .string(let text)?:
            guard let time = try? Scenario.time(text, place: place) else {
                throw ScenarioScriptError("\(place).timestamp must be true or an ISO 8601 time, not \(text)")
            }
            expectation.timestamp = .exactly(time)
        case let other?: throw ScenarioScriptError("\(place).timestamp must be true or an ISO 8601 time, not \(other)")
        }
        expectation.observations = try patterns(fields.value("observations"), place: "\(place).observations")
        expectation.absent = try patterns(fields.value("absent"), place: "\(place).absent")
        expectation.nothingObserved = try fields.bool("nothingObserved") ?? false
        if let response = fields.value("response") {
            guard response.isObject else { throw ScenarioScriptError("\(place).response must be a mapping like {status: 200, body: {…}}") }
            expectation.response = response
        }
        if let within = fields.value("within") {
            let seconds = try ScenarioStep.duration(within, place: "\(place).within")
            guard seconds <= 600 else { throw ScenarioScriptError("\(place).within must be at most 600 seconds") }
            expectation.withinSeconds = seconds
        }
        try fields.checkAllRead()
        return expectation
    }

    private static func patterns(_ value: JSONValue?, place: String) throws(ScenarioScriptError) -> [ObservationPattern] {
        guard let value else { return [] }
        guard case .array(let items) = value else { throw ScenarioScriptError("\(place) must be a list of observations") }
        var patterns: [ObservationPattern] = []
        for (index, item) in items.enumerated() {
            patterns.append(try ObservationPattern.parse(item, place: "\(place)[\(index)]"))
        }
        return patterns
    }
}

extension ObservationPattern {
    /// A mapping of observation fields, or just a kind (`banner`). `device` stands for
    /// `deviceId`; `callback` may be a short name; `kind` must be one of the eleven.
    static func parse(_ value: JSONValue, place: String) throws(ScenarioScriptError) -> ObservationPattern {
        if let kind = value.stringValue { return try parse(.object([("kind", .string(kind))]), place: place) }
        guard case .object(let members) = value, !members.isEmpty else {
            throw ScenarioScriptError("\(place) must be an observation kind or a mapping of observation fields")
        }
        var fields: [(key: String, value: JSONValue)] = []
        for (key, member) in members {
            switch key {
            case "device":
                fields.append(("deviceId", member))
            case "kind":
                guard let kind = member.stringValue, ObservationKind(rawValue: kind) != nil else {
                    let kinds = ObservationKind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ScenarioScriptError("\(place).kind must be one of \(kinds), not \(member)")
                }
                fields.append((key, member))
            case "callback":
                guard let name = member.stringValue, let callback = AppCallback(name: name) else {
                    throw ScenarioScriptError("\(place).callback \(member) is not a callback the simulator knows (docs/SIMULATOR.md 1.3)")
                }
                fields.append((key, .string(callback.rawValue)))
            default:
                fields.append((key, member))
            }
        }
        return ObservationPattern(fields: fields)
    }
}
