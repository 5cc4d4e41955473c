/// What the report has counted for one provider so far. Plain state: `ProviderReportRecorder`
/// guards it, and each rule that needs history across providers (retries, 410s, 429s) is
/// decided there and counted here.
struct ProviderTally {
    static let examplesKept = 3
    /// Providers rarely sign more tokens than this; past it, tokens are no longer told apart.
    static let tokensKept = 10_000
    static let connectionsKept = 100_000

    var requests = 0
    var firstRequest: EpochMilliseconds = .max
    var lastRequest: EpochMilliseconds = .min
    /// Requests and 429 TooManyRequests answers per second (`time / 1000`).
    var perSecond: [Int64: SecondCount] = [:]
    var statuses: [Int: Int] = [:]
    var reasons: [APNsErrorReason: Int] = [:]
    var latency = LatencyHistogram()
    var connectionsOpened = 0
    var retries = ProviderReport.Retries()
    /// Lifetime and requests of each closed connection (the first `connectionsKept`).
    var closedConnections: [(lifetime: Int64, requests: Int)] = []
    var connectionsClosed = 0
    var shortConnections = 0
    var connectionsClosedForErrors = 0
    var streamLimitExceeded = 0
    var closedAtStreamLimit = 0
    var pushesAfter410 = 0
    var ignored429 = 0
    var backgroundPriority10 = 0
    var expirationBeyondStorage = 0
    /// Distinct provider tokens by fingerprint: their `iat`, and how many requests each carried.
    var providerTokens: [UInt64: (issuedAt: EpochMilliseconds, requests: Int)] = [:]
    var examples: [ProviderFinding.Kind: [String]] = [:]
    /// Kinds whose examples are full, as bits of `ProviderFinding.Kind.allCases`' order: a
    /// batch's tally takes them from the provider's, so it describes nothing that would be dropped.
    var fullExamples: UInt32 = 0

    struct SecondCount {
        var requests = 0
        var tooManyRequests = 0
    }

    /// The second, status and provider token being counted, kept out of their dictionaries until
    /// another comes (`settle`): the requests of one read nearly always share all three, and a
    /// dictionary access for each was a tenth of the report's cost.
    struct Run {
        var second: Int64 = .min
        var secondCount = SecondCount()
        var status = 0
        var statusCount = 0
        var token: ProviderTokenStamp?
        var tokenRequests = 0
    }

    private var run = Run()

    /// Moves the counts of the current run into the dictionaries.
    mutating func settle() {
        settleSecond()
        settleStatus()
        settleToken()
    }

    private mutating func settleSecond() {
        guard run.secondCount.requests > 0 else { return }
        perSecond[run.second, default: SecondCount()].requests += run.secondCount.requests
        perSecond[run.second, default: SecondCount()].tooManyRequests += run.secondCount.tooManyRequests
        run.secondCount = SecondCount()
    }

    private mutating func settleStatus() {
        guard run.statusCount > 0 else { return }
        statuses[run.status, default: 0] += run.statusCount
        run.statusCount = 0
    }

    private mutating func settleToken() {
        guard let token = run.token, run.tokenRequests > 0 else { return }
        add(token: token.fingerprint, (token.issuedAt, run.tokenRequests))
        run.tokenRequests = 0
    }

    private mutating func add(token fingerprint: UInt64, _ token: (issuedAt: EpochMilliseconds, requests: Int)) {
        if providerTokens[fingerprint] != nil {
            providerTokens[fingerprint]!.requests += token.requests
        } else if providerTokens.count < Self.tokensKept {
            providerTokens[fingerprint] = token
        }
    }

    mutating func count(_ exchange: ProviderExchange) {
        requests += 1
        firstRequest = min(firstRequest, exchange.time)
        lastRequest = max(lastRequest, exchange.time)
        let second = exchange.time / 1000
        if second != run.second {
            settleSecond()
            run.second = second
        }
        run.secondCount.requests += 1
        if exchange.reason == .tooManyRequests { run.secondCount.tooManyRequests += 1 }
        if exchange.status != run.status {
            settleStatus()
            run.status = exchange.status
        }
        run.statusCount += 1
        if let reason = exchange.reason { reasons[reason, default: 0] += 1 }
        if let stamp = exchange.providerToken {
            if stamp != run.token {
                settleToken()
                run.token = stamp
            }
            run.tokenRequests += 1
        }
        if exchange.pushType == .background && exchange.priority == 10 {
            backgroundPriority10 += 1
            note(.backgroundPriority10, "\(Self.describe(exchange)) at priority 10")
        }
        if let expiration = exchange.expiration, expiration > exchange.time / 1000 + ProviderReportRules.storageSeconds {
            expirationBeyondStorage += 1
            note(.expirationBeyondStorage, "\(Self.describe(exchange)) with apns-expiration \(expiration)")
        }
    }

    /// What the token's history says of a request: a push after its 410, a push right after its
    /// 429, a retry.
    mutating func count(_ verdict: TokenHistory.Verdict, of exchange: ProviderExchange) {
        if let goneAt = verdict.goneAt {
            pushesAfter410 += 1
            note(.pushedAfter410, "\(Self.describe(exchange)), answered 410 at \(ISO8601Milliseconds.format(goneAt))")
        }
        if let throttledAt = verdict.throttledAt {
            ignored429 += 1
            note(.ignored429, "\(Self.describe(exchange)), \(exchange.time - throttledAt) ms after its 429")
        }
        guard let earlier = verdict.earlier else { return }
        retries.count(after: earlier.status)
        // Described only while the finding has room for an example: most retries are counted, not told.
        func after() -> String {
            "\(Self.describe(exchange)), \(exchange.time - earlier.time) ms after the same push, which was answered \(earlier.status)"
        }
        switch earlier.status {
        case 200..<300: note(.duplicatePush, after())
        case 400, 404, 405, 413: note(.retriedRefusal, "\(after()) \(earlier.reason?.rawValue ?? "")")
        default: break
        }
    }

    mutating func note(_ kind: ProviderFinding.Kind, _ example: @autoclosure () -> String) {
        guard fullExamples & kind.bit == 0 else { return }
        examples[kind, default: []].append(example())
        if examples[kind]!.count >= Self.examplesKept { fullExamples |= kind.bit }
    }

    mutating func record(latencies: [UInt32]) {
        for latency in latencies { self.latency.record(microseconds: latency) }
    }

    /// Adds a batch's tally (counted outside the recorder's lock, and settled) to this one.
    mutating func merge(_ batch: ProviderTally) {
        guard batch.requests > 0 || batch.latency.count > 0 else { return }
        requests += batch.requests
        firstRequest = min(firstRequest, batch.firstRequest)
        lastRequest = max(lastRequest, batch.lastRequest)
        for (second, count) in batch.perSecond {
            perSecond[second, default: SecondCount()].requests += count.requests
            perSecond[second, default: SecondCount()].tooManyRequests += count.tooManyRequests
        }
        for (status, count) in batch.statuses { statuses[status, default: 0] += count }
        for (reason, count) in batch.reasons { reasons[reason, default: 0] += count }
        latency.merge(batch.latency)
        retries.afterSuccess += batch.retries.afterSuccess
        retries.afterRefusal += batch.retries.afterRefusal
        retries.afterAuthenticationFailure += batch.retries.afterAuthenticationFailure
        retries.after410 += batch.retries.after410
        retries.after429 += batch.retries.after429
        retries.afterServerError += batch.retries.afterServerError
        pushesAfter410 += batch.pushesAfter410
        ignored429 += batch.ignored429
        backgroundPriority10 += batch.backgroundPriority10
        expirationBeyondStorage += batch.expirationBeyondStorage
        for (fingerprint, token) in batch.providerTokens { add(token: fingerprint, token) }
        for (kind, more) in batch.examples {
            for example in more { note(kind, example) }
        }
    }

    /// `token 3f2a…91c0 at 2026-11-29T12:00:00.123Z on connection 7`.
    static func describe(_ exchange: ProviderExchange) -> String {
        let token = exchange.deviceToken.map { "token \(abbreviate($0.hex))" } ?? "a request"
        return "\(token) at \(ISO8601Milliseconds.format(exchange.time)) on connection \(exchange.connectionID)"
    }

    static func abbreviate(_ token: String) -> String {
        token.count <= 12 ? token : "\(token.prefix(4))…\(token.suffix(4))"
    }

    /// Seconds in which 429 TooManyRequests answers came and the next second carried more requests.
    var fasterSecondsAfter429: [Int64] {
        perSecond.compactMap { second, count in
            guard count.tooManyRequests > 0, let next = perSecond[second + 1], next.requests > count.requests else { return nil }
            return second
        }.sorted()
    }

    /// Tokens thrown away after a push or two while the key signed another within 20 minutes:
    /// a token per push, or per short-lived connection. Several connections that each sign a
    /// token and keep it (a client's pool) are not counted; a token changed on one connection
    /// within 20 minutes is also answered 429 `TooManyProviderTokenUpdates`.
    var earlyTokenIssues: (count: Int, shortestMilliseconds: Int64?, examples: [String]) {
        let tokens = providerTokens.values.sorted { $0.issuedAt < $1.issuedAt }
        let gaps = zip(tokens, tokens.dropFirst()).map { $1.issuedAt - $0.issuedAt }
        var count = 0
        var examples: [String] = []
        for (index, token) in tokens.enumerated() where token.requests <= ProviderReportRules.shortTokenRequests {
            let before = index > 0 ? gaps[index - 1] : nil
            let after = index < gaps.count ? gaps[index] : nil
            guard let nearest = [before, after].compactMap({ $0 }).min(), nearest < ProviderReportRules.tokenRefreshMilliseconds else { continue }
            count += 1
            if examples.count < Self.examplesKept {
                let requests = "\(token.requests) request\(token.requests == 1 ? "" : "s")"
                examples.append("a token issued at \(ISO8601Milliseconds.format(token.issuedAt)) carried \(requests); another was issued \(Self.seconds(nearest)) apart")
            }
        }
        return (count, gaps.min(), examples)
    }

    static func seconds(_ milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(Double(milliseconds) / 1000) s"
    }
}

/// The thresholds of the report's rules.
public enum ProviderReportRules {
    /// The same token and payload again within this long is a retry.
    public static let retryWindowMilliseconds: Int64 = 60_000
    /// A push to a token this soon after its 429 ignored the 429.
    public static let backOffAfter429Milliseconds: Int64 = 1_000
    /// Apple: refresh a provider token no more than once every 20 minutes.
    public static let tokenRefreshMilliseconds: Int64 = 20 * 60_000
    /// Apple stores a push for at most 30 days.
    public static let storageSeconds: Int64 = 30 * 86_400
    /// A token that carried at most this many requests was signed for a push or two.
    public static let shortTokenRequests = 2
    /// A closed connection that carried at most this many requests was opened for a push or two.
    public static let shortConnectionRequests = 2
    /// …and lived less than this: opened and closed around a push, not a connection that waited
    /// (a client's pool closing one it had no more use for).
    public static let shortConnectionMilliseconds: Int64 = 5_000
    /// It takes this many such connections for the finding…
    public static let shortConnectionsForFinding = 3
    /// …and at least half of the provider's closed connections: a pool that replaces a few
    /// connections near the end of a run, and closes them with the rest, is not the pattern.
    public static let shortConnectionShareForFinding = 0.5
}
