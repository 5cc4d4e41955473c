import PushlabCore

extension LatencyProfile {
    /// As `PUT /v1/latency` and a scenario's `policy.latency` spell it, with the preset it is.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("preset", Self.presets.first { $0.profile == self }?.name)
        fields.add("development", development?.controlJSON)
        fields.add("production", production?.controlJSON)
        fields.add("connectionStart", connectionStart?.controlJSON)
        fields.add("internalServerErrorRate", internalServerErrorRate)
        fields.add("serviceUnavailableRate", serviceUnavailableRate)
        if let goAwayAfter, goAwayShare > 0 {
            var goAway = JSONFields()
            goAway.add("share", goAwayShare)
            goAway.add("after", goAwayAfter.controlJSON)
            fields.add("goAway", goAway.json)
        }
        fields.add("seed", Int64(bitPattern: seed))
        return fields.json
    }
}

extension LatencyDistribution {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        switch self {
        case .fixed(let milliseconds):
            fields.add("distribution", "fixed")
            fields.add("ms", milliseconds)
        case .uniform(let minimum, let maximum):
            fields.add("distribution", "uniform")
            fields.add("minMs", minimum)
            fields.add("maxMs", maximum)
        case .logNormal(let p50, let p99):
            fields.add("distribution", "logNormal")
            fields.add("p50Ms", p50)
            fields.add("p99Ms", p99)
        }
        return fields.json
    }
}
