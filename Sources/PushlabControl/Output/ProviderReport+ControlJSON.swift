import PushlabCore

extension ProviderReport {
    /// `GET /v1/report` (docs/CONTROL-API.md): absent values are left out, as elsewhere.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("recording", recording)
        fields.addTime("since", since)
        fields.addTime("generatedAt", generatedAt)
        fields.add("findings", findings.count)
        fields.add("providers", .array(providers.map(\.controlJSON)))
        fields.add("connectionsFollowed", connectionsFollowed)
        fields.add("connections", .array(connections.map { $0.controlJSON(now: generatedAt) }))
        return fields.json
    }
}

extension ProviderIdentity {
    var controlFields: JSONFields {
        var fields = JSONFields()
        fields.add("id", id)
        switch self {
        case .key(let keyID, let teamID):
            fields.add("kind", "key")
            fields.add("keyId", keyID)
            fields.add("teamId", teamID)
        case .certificate(let subject):
            fields.add("kind", "certificate")
            fields.add("certificateSubject", subject)
        case .unauthenticated:
            fields.add("kind", "unauthenticated")
        }
        return fields
    }
}

extension ProviderReport.Provider {
    var controlJSON: JSONValue {
        var fields = provider.controlFields
        fields.add("requests", requests)
        fields.addTime("firstRequest", firstRequest)
        fields.addTime("lastRequest", lastRequest)
        var rate = JSONFields()
        rate.add("mean", Self.rounded(meanRate))
        rate.add("peak", peakRate)
        fields.add("rate", rate.json)
        var concurrency = JSONFields()
        concurrency.add("mean", meanConcurrency.map(Self.rounded))
        concurrency.add("peak", peakConcurrency)
        concurrency.add("streamLimit", streamLimit.map(Int.init))
        fields.add("concurrency", concurrency.json)
        var connections = JSONFields()
        connections.add("opened", connectionsOpened)
        connections.add("open", connectionsOpen)
        connections.add("requestsPerConnection", requestsPerConnection?.controlJSON)
        connections.add("lifetimeMs", connectionLifetimeMilliseconds?.controlJSON)
        fields.add("connections", connections.json)
        var latencyFields = JSONFields()
        latencyFields.add("count", Int(latency.count))
        for (name, fraction) in [("p50", 0.5), ("p90", 0.9), ("p99", 0.99)] {
            latencyFields.add(name, latencyMilliseconds(fraction).map(Self.rounded))
        }
        if latency.count > 0 { latencyFields.add("max", Self.rounded(Double(latency.maxMicroseconds) / 1000)) }
        latencyFields.add("mean", latency.meanMicroseconds.map { Self.rounded($0 / 1000) })
        fields.add("latencyMs", latencyFields.json)
        fields.add("statuses", .object(statuses.sorted { $0.key < $1.key }.map { (String($0.key), .number(Double($0.value))) }))
        fields.add("reasons", .object(reasons.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value))) }))
        var retryFields = JSONFields()
        retryFields.add("total", retries.total)
        retryFields.add("afterSuccess", retries.afterSuccess)
        retryFields.add("afterRefusal", retries.afterRefusal)
        retryFields.add("afterAuthenticationFailure", retries.afterAuthenticationFailure)
        retryFields.add("after410", retries.after410)
        retryFields.add("after429", retries.after429)
        retryFields.add("afterServerError", retries.afterServerError)
        fields.add("retries", retryFields.json)
        fields.add("pushesAfter410", pushesAfter410)
        var tokens = JSONFields()
        tokens.add("distinct", providerTokens.distinct)
        tokens.add("issuedTooSoon", providerTokens.issuedTooSoon)
        tokens.add("shortestIntervalMs", providerTokens.shortestIntervalMilliseconds)
        fields.add("providerTokens", tokens.json)
        var throttled = JSONFields()
        throttled.add("answers", tooManyRequests.answers)
        throttled.add("pushesTooSoon", tooManyRequests.pushesTooSoon)
        throttled.add("fasterSeconds", tooManyRequests.fasterSeconds)
        fields.add("tooManyRequests", throttled.json)
        fields.add("findings", .array(findings.map(\.controlJSON)))
        return fields.json
    }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}

extension ProviderReport.Summary {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("min", ProviderReport.Provider.rounded(min))
        fields.add("median", ProviderReport.Provider.rounded(median))
        fields.add("max", ProviderReport.Provider.rounded(max))
        return fields.json
    }
}

extension ProviderFinding {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("id", kind.rawValue)
        fields.add("title", kind.title)
        fields.add("count", count)
        fields.add("unit", unit)
        fields.add("rule", kind.rule)
        fields.add("source", kind.source)
        fields.add("examples", strings: examples)
        return fields.json
    }
}

extension ProviderReport.Connection {
    func controlJSON(now: EpochMilliseconds) -> JSONValue {
        var fields = JSONFields()
        fields.add("id", Int64(truncatingIfNeeded: id))
        fields.add("provider", provider.id)
        fields.add("environment", environment.rawValue)
        fields.addTime("openedAt", openedAt)
        fields.addTime("closedAt", closedAt)
        fields.add("lifetimeMs", lifetimeMilliseconds(now: now))
        fields.add("requests", requests)
        fields.add("peakInFlight", peakInFlight)
        fields.add("streamLimit", Int(streamLimit))
        fields.add("streamLimitExceeded", streamLimitExceeded)
        fields.add("goAway", goAway?.rawValue)
        fields.add("closedForErrors", closedForErrors)
        fields.add("statuses", .object(statuses.sorted { $0.key < $1.key }.map { (String($0.key), .number(Double($0.value))) }))
        return fields.json
    }
}
