import PushlabCore

extension FaultRule {
    /// A rule as `/v1/faults` shows it: the fields a POST takes, then its counts.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("id", id)
        fields.add("deviceToken", deviceToken)
        fields.add("topic", topic)
        fields.add("everyNth", everyNth)
        fields.add("probability", probability)
        fields.add("count", count)
        switch fault {
        case .respond(let reason):
            var respond = JSONFields()
            respond.add("status", reason.status)
            respond.add("reason", reason.rawValue)
            fields.add("respond", respond.json)
        case .delay(let milliseconds):
            fields.add("delayMs", milliseconds)
        case .goAway(let reason):
            fields.add("goAway", reason.rawValue)
        case .resetStream:
            fields.add("resetStream", true)
        case .closeConnection:
            fields.add("closeConnection", true)
        }
        fields.add("matched", matched)
        fields.add("fired", fired)
        fields.add("remaining", remaining)
        return fields.json
    }
}
