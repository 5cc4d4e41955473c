import Synchronization

/// Collects what the provider connections tell it while recording is on, and makes the report.
/// Off, it costs a connection one atomic read per read of its socket.
public final class ProviderReportRecorder: Sendable {
    /// Past these, the rules that look back stop remembering more (a load test with millions of
    /// tokens still gets every count; only a retry or a 410 older than the cap goes unseen).
    static let tokensRemembered = 1_000_000
    /// Requests the retry rule remembers (its table, 6 MB while recording): at 100,000 pushes a
    /// second a retry within about 2 s is found, at 1,000 one within the whole minute.
    static let requestsRemembered = 1 << 18
    static let closedConnectionsKept = 1_000

    private let recording = Atomic<Bool>(false)
    private let state = Mutex(State())
    private let history = TokenHistory(remembering: ProviderReportRecorder.tokensRemembered, requests: ProviderReportRecorder.requestsRemembered)

    public init(recording: Bool = false, now: EpochMilliseconds = 0) {
        if recording { start(at: now) }
    }

    public var isRecording: Bool { recording.load(ordering: .relaxed) }

    /// Starts recording; what was recorded before stays (`clear` forgets it).
    public func start(at now: EpochMilliseconds) {
        state.withLock { if $0.since == nil { $0.since = now } }
        recording.store(true, ordering: .relaxed)
    }

    public func stop() {
        recording.store(false, ordering: .relaxed)
    }

    /// Forgets everything recorded; connections already open are followed from now on.
    public func clear(at now: EpochMilliseconds) {
        history.removeAll()
        state.withLock { state in
            let open = state.connections.values.filter { $0.closedAt == nil }
            state = State()
            state.since = isRecording ? now : nil
            for var connection in open {
                // Its earlier requests still say how long it was used, not how it was used since.
                connection.earlierRequests += connection.requests
                connection.requests = 0
                connection.statuses = [:]
                connection.peakInFlight = 0
                state.connections[connection.id] = connection
                if let provider = connection.provider { state.providers[provider, default: ProviderTally()].connectionsOpened += 1 }
            }
        }
    }

    /// A connection's requests and events since it last told; ignored while not recording.
    /// The requests are counted outside the lock, into a tally of the batch (the rules that look
    /// across requests take one shard of `TokenHistory` each); the lock is held to add it.
    public func record(_ exchanges: [ProviderExchange], events: [ProviderConnectionEvent]) {
        guard isRecording, !(exchanges.isEmpty && events.isEmpty) else { return }
        let (connectionProvider, fullExamples) = state.withLock { state -> (ProviderIdentity?, UInt32) in
            for event in events where event.isOpening { state.apply(event) }
            guard let first = exchanges.first else { return (nil, 0) }
            let known = state.connections[first.connectionID]?.provider
            return (known, state.providers[first.provider ?? known ?? .unauthenticated]?.fullExamples ?? 0)
        }
        var batch = Batch()
        for exchange in exchanges {
            let provider = exchange.provider ?? connectionProvider ?? .unauthenticated
            batch.count(exchange, as: provider, fullExamples: fullExamples, history: history)
        }
        state.withLock { state in
            state.add(batch)
            for event in events where !event.isOpening { state.apply(event) }
        }
    }

    /// One connection's requests of one read, counted: per provider (nearly always one), and the
    /// connection's own figures.
    struct Batch {
        var tallies: [(provider: ProviderIdentity, tally: ProviderTally)] = []
        var connectionID: UInt64?
        /// The first provider a request named, for a connection that had none.
        var namedProvider: ProviderIdentity?
        var requests = 0
        var statuses: [Int: Int] = [:]

        mutating func count(_ exchange: ProviderExchange, as provider: ProviderIdentity, fullExamples: UInt32, history: TokenHistory) {
            connectionID = exchange.connectionID
            if namedProvider == nil, let named = exchange.provider { namedProvider = named }
            requests += 1
            statuses[exchange.status, default: 0] += 1
            let index: Int
            if let found = tallies.firstIndex(where: { $0.provider == provider }) {
                index = found
            } else {
                var fresh = ProviderTally()
                if tallies.isEmpty { fresh.fullExamples = fullExamples }
                tallies.append((provider, fresh))
                index = tallies.count - 1
            }
            tallies[index].tally.count(exchange)
            if let token = exchange.deviceToken {
                let verdict = history.follow(
                    token: RequestFingerprint.of(token), request: exchange.requestHash, time: exchange.time, status: exchange.status, reason: exchange.reason
                )
                tallies[index].tally.count(verdict, of: exchange)
            }
        }
    }

    public func report(now: EpochMilliseconds) -> ProviderReport {
        state.withLock { $0.report(now: now, recording: isRecording) }
    }

    struct State {
        var since: EpochMilliseconds?
        var providers: [ProviderIdentity: ProviderTally] = [:]
        var connections: [UInt64: ConnectionTally] = [:]
        var closedOrder: [UInt64] = []
        var connectionsFollowed = 0

        mutating func add(_ batch: Batch) {
            guard let id = batch.connectionID else { return }
            if var connection = connections[id] {
                connection.requests += batch.requests
                for (status, count) in batch.statuses { connection.statuses[status, default: 0] += count }
                if connection.provider == nil, let named = batch.namedProvider {
                    connection.provider = named
                    providers[named, default: ProviderTally()].connectionsOpened += 1
                    // Streams refused before the connection's first request named its provider.
                    countRefusals(connection.streamLimitExceeded, on: connection, firstAt: connection.firstRefusalAt, for: named)
                }
                connections[id] = connection
            }
            for (provider, tally) in batch.tallies { providers[provider, default: ProviderTally()].merge(tally) }
        }

        mutating func apply(_ event: ProviderConnectionEvent) {
            switch event {
            case .opened(let id, let at, let environment, let provider, let streamLimit):
                connectionsFollowed += 1
                connections[id] = ConnectionTally(id: id, environment: environment, provider: provider, openedAt: at, streamLimit: streamLimit)
                if let provider { providers[provider, default: ProviderTally()].connectionsOpened += 1 }
            case .answered(let id, let latencies, let peakInFlight, let streamLimit):
                guard var connection = connections[id] else { return }
                connection.peakInFlight = max(connection.peakInFlight, peakInFlight)
                connection.streamLimit = streamLimit
                connections[id] = connection
                let provider = connection.provider ?? .unauthenticated
                var tally = providers.removeValue(forKey: provider) ?? ProviderTally()
                for latency in latencies { tally.latency.record(microseconds: latency) }
                providers[provider] = tally
            case .streamLimitExceeded(let id, let at):
                guard var connection = connections[id] else { return }
                connection.streamLimitExceeded += 1
                connection.firstRefusalAt = connection.firstRefusalAt ?? at
                connections[id] = connection
                // Until a request names the connection's provider, the refusal waits with it.
                if let provider = connection.provider { countRefusals(1, on: connection, firstAt: at, for: provider) }
            case .closed(let id, let at, let goAway, let forErrors):
                guard var connection = connections[id], connection.closedAt == nil else { return }
                connection.closedAt = at
                connection.goAway = goAway
                connection.closedForErrors = forErrors
                connections[id] = connection
                close(connection)
            }
        }

        private mutating func countRefusals(_ count: Int, on connection: ConnectionTally, firstAt: EpochMilliseconds?, for provider: ProviderIdentity) {
            guard count > 0 else { return }
            providers[provider, default: ProviderTally()].streamLimitExceeded += count
            let when = firstAt.map { " at \(ISO8601Milliseconds.format($0))" } ?? ""
            providers[provider, default: ProviderTally()].note(
                .streamLimitExceeded, "connection \(connection.id)\(when): \(count == 1 ? "a stream" : "\(count) streams") refused past the connection's limit"
            )
        }

        private mutating func close(_ connection: ConnectionTally) {
            closedOrder.append(connection.id)
            if closedOrder.count > ProviderReportRecorder.closedConnectionsKept * 2 {
                let dropped = closedOrder.count - ProviderReportRecorder.closedConnectionsKept
                for id in closedOrder.prefix(dropped) { connections.removeValue(forKey: id) }
                closedOrder.removeFirst(dropped)
            }
            // A connection that never sent a request belongs to nobody, but its refused streams count.
            guard let provider = connection.provider else {
                countRefusals(connection.streamLimitExceeded, on: connection, firstAt: connection.firstRefusalAt, for: .unauthenticated)
                return
            }
            var tally = providers.removeValue(forKey: provider) ?? ProviderTally()
            let lifetime = (connection.closedAt ?? connection.openedAt) - connection.openedAt
            let requests = connection.requests + connection.earlierRequests
            tally.connectionsClosed += 1
            if tally.closedConnections.count < ProviderTally.connectionsKept {
                tally.closedConnections.append((lifetime, requests))
            }
            if requests <= ProviderReportRules.shortConnectionRequests, lifetime < ProviderReportRules.shortConnectionMilliseconds {
                tally.shortConnections += 1
                tally.note(.connectionPerPush, "connection \(connection.id): \(requests) request\(requests == 1 ? "" : "s") in \(lifetime) ms")
            }
            if connection.closedForErrors {
                tally.connectionsClosedForErrors += 1
                tally.note(.closedForErrors, "connection \(connection.id): GOAWAY \(connection.goAway?.rawValue ?? "") after \(connection.requests) requests")
            }
            if connection.reachedStreamLimit {
                tally.closedAtStreamLimit += 1
                tally.note(.streamLimitReached, "connection \(connection.id): \(connection.peakInFlight) requests in flight, its limit")
            }
            providers[provider] = tally
        }
    }
}

extension ProviderConnectionEvent {
    var isOpening: Bool {
        if case .opened = self { return true }
        return false
    }
}
