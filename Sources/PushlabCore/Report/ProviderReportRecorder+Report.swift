extension ProviderReportRecorder.State {
    func report(now: EpochMilliseconds, recording: Bool) -> ProviderReport {
        let open = connections.values.filter { $0.closedAt == nil }
        let providerSummaries = providers.map { provider, tally in
            summary(of: provider, tally, open: open.filter { ($0.provider ?? .unauthenticated) == provider }, now: now)
        }.sorted { ($0.requests, $1.provider) > ($1.requests, $0.provider) }
        let closed = closedOrder.reversed().compactMap { connections[$0] }
        let shown = (open.sorted { $0.id > $1.id } + closed).prefix(ProviderReport.connectionsShown).map(\.summary)
        return ProviderReport(
            recording: recording, since: since, generatedAt: now, providers: providerSummaries, connections: Array(shown),
            connectionsFollowed: connectionsFollowed
        )
    }

    private func summary(of provider: ProviderIdentity, _ tally: ProviderTally, open: [ConnectionTally], now: EpochMilliseconds) -> ProviderReport.Provider {
        let spanSeconds = tally.requests == 0 ? 1 : max(1, Double(tally.lastRequest - tally.firstRequest) / 1000)
        let meanRate = Double(tally.requests) / spanSeconds
        let meanLatencySeconds = tally.latency.meanMicroseconds.map { $0 / 1_000_000 }
        let connectionRequests = tally.closedConnections.map { Double($0.requests) } + open.map { Double($0.requests + $0.earlierRequests) }
        let lifetimes = tally.closedConnections.map { Double($0.lifetime) } + open.map { Double(now - $0.openedAt) }
        let tokens = tally.earlyTokenIssues
        let faster = tally.fasterSecondsAfter429
        let peakConcurrency = max(
            open.map(\.peakInFlight).max() ?? 0,
            connections.values.filter { $0.provider == provider }.map(\.peakInFlight).max() ?? 0
        )
        var reasons: [String: Int] = [:]
        for (reason, count) in tally.reasons { reasons[reason.rawValue] = count }
        var result = ProviderReport.Provider(
            provider: provider, requests: tally.requests,
            firstRequest: tally.requests == 0 ? nil : tally.firstRequest, lastRequest: tally.requests == 0 ? nil : tally.lastRequest,
            meanRate: meanRate, peakRate: tally.perSecond.values.map(\.requests).max() ?? 0,
            meanConcurrency: meanLatencySeconds.map { meanRate * $0 }, peakConcurrency: peakConcurrency,
            streamLimit: (open.map(\.streamLimit) + connections.values.filter { $0.provider == provider }.map(\.streamLimit)).max(),
            connectionsOpened: tally.connectionsOpened, connectionsOpen: open.count,
            requestsPerConnection: ProviderReport.Summary(connectionRequests),
            connectionLifetimeMilliseconds: ProviderReport.Summary(lifetimes),
            latency: tally.latency, statuses: tally.statuses, reasons: reasons, retries: tally.retries,
            pushesAfter410: tally.pushesAfter410,
            providerTokens: .init(distinct: tally.providerTokens.count, issuedTooSoon: tokens.count, shortestIntervalMilliseconds: tokens.shortestMilliseconds),
            tooManyRequests: .init(answers: tally.reasons[.tooManyRequests] ?? 0, pushesTooSoon: tally.ignored429, fasterSeconds: faster.count),
            findings: []
        )
        result.findings = findings(tally, open: open, tokens: tokens, fasterSeconds: faster)
        return result
    }

    private func findings(
        _ tally: ProviderTally, open: [ConnectionTally], tokens: (count: Int, shortestMilliseconds: Int64?, examples: [String]), fasterSeconds: [Int64]
    ) -> [ProviderFinding] {
        var found: [ProviderFinding] = []
        func add(_ kind: ProviderFinding.Kind, _ count: Int, _ unit: String, examples: [String]? = nil) {
            guard count > 0 else { return }
            found.append(ProviderFinding(kind: kind, count: count, unit: unit, examples: examples ?? tally.examples[kind] ?? []))
        }
        if tally.shortConnections >= ProviderReportRules.shortConnectionsForFinding,
           Double(tally.shortConnections) >= ProviderReportRules.shortConnectionShareForFinding * Double(tally.connectionsClosed) {
            add(.connectionPerPush, tally.shortConnections, "connections")
        }
        add(.tokenRefreshedTooOften, tokens.count, "tokens", examples: tokens.examples)
        add(.expiredProviderToken, tally.reasons[.expiredProviderToken] ?? 0, "requests")
        add(.ignored429, tally.ignored429, "requests")
        add(
            .fasterAfter429, fasterSeconds.count, "seconds",
            examples: fasterSeconds.prefix(ProviderTally.examplesKept).map { second in
                let this = tally.perSecond[second]!, next = tally.perSecond[second + 1]!
                return "\(ISO8601Milliseconds.format(second * 1000)): \(this.requests) requests with \(this.tooManyRequests) 429s, then \(next.requests)"
            }
        )
        add(.pushedAfter410, tally.pushesAfter410, "requests")
        add(.duplicatePush, tally.retries.afterSuccess, "requests")
        add(.retriedRefusal, tally.retries.afterRefusal, "requests")
        let openAtLimit = open.filter(\.reachedStreamLimit)
        add(
            .streamLimitReached, tally.closedAtStreamLimit + openAtLimit.count, "connections",
            examples: (tally.examples[.streamLimitReached] ?? [])
                + openAtLimit.prefix(ProviderTally.examplesKept).map { "connection \($0.id) (open): \($0.peakInFlight) requests in flight, its limit" }
        )
        add(.streamLimitExceeded, tally.streamLimitExceeded, "refusals")
        add(.closedForErrors, tally.connectionsClosedForErrors, "connections")
        add(.backgroundPriority10, tally.backgroundPriority10, "requests")
        add(.expirationBeyondStorage, tally.expirationBeyondStorage, "requests")
        return found
    }
}
