import Synchronization

/// Collects what the provider connections tell it while recording is on, and makes the report.
/// Off, it costs a connection one atomic read per read of its socket.
public final class ProviderReportRecorder: Sendable {
    /// Past these, the rules that look back stop remembering more (a load test with millions of
    /// tokens still gets every count; only a retry or a 410 older than the cap goes unseen).
    static let tokensRemembered = 1_000_000
    /// Requests the retry rule remembers (its table, 4 MB once recording has started): at 100,000
    /// pushes a second a retry within about 5 s is found, at 5,000 one within the whole minute.
    static let requestsRemembered = 1 << 19
    static let closedConnectionsKept = 1_000

    private let recording = Atomic<Bool>(false)
    /// How many times the report was cleared (`State.generation`, read without the lock).
    private let clears = Atomic<UInt64>(0)
    private let state = Mutex(State())

    public init(recording: Bool = false, now: EpochMilliseconds = 0) {
        if recording { start(at: now) }
    }

    public var isRecording: Bool { recording.load(ordering: .relaxed) }

    /// Starts recording; what was recorded before stays (`clear` forgets it).
    public func start(at now: EpochMilliseconds) {
        state.withLock { state in
            if state.since == nil { state.since = now }
            // Made on first use: 4 MB that a server nobody asks for a report never spends.
            if state.history == nil { state.history = TokenHistory(remembering: Self.tokensRemembered, requests: Self.requestsRemembered) }
        }
        recording.store(true, ordering: .relaxed)
    }

    public func stop() {
        recording.store(false, ordering: .relaxed)
    }

    /// Forgets everything recorded; connections already open are followed from now on.
    public func clear(at now: EpochMilliseconds) {
        state.withLock { state in
            let open = state.connections.values.filter { $0.closedAt == nil }
            let history = state.history
            history?.removeAll()
            let generation = state.generation + 1
            state = State()
            state.history = history
            state.generation = generation
            clears.store(generation, ordering: .relaxed)
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

    /// Counts one request and its answer into its connection's batch, as it is answered: the
    /// rules that look across requests consult `TokenHistory`; nothing else is shared.
    func count(_ exchange: ProviderExchange, into batch: inout Batch) {
        let generation = clears.load(ordering: .relaxed)
        if generation != batch.generation { batch.forget(upTo: generation) }
        batch.count(exchange)
    }

    /// A connection's first batch; `provider` is its certificate's, if it has one.
    func makeBatch(provider: ProviderIdentity?) -> Batch {
        state.withLock { Batch(provider: provider, history: $0.history, generation: $0.generation) }
    }

    /// Adds a connection's batch (its requests since it last told) and its events, then starts
    /// the connection's next batch. A batch counted while recording is added even if recording
    /// stopped since: a connection hands its last one over when it notices.
    func record(_ batch: inout Batch, events: [ProviderConnectionEvent]) {
        guard !(batch.requests == 0 && batch.earlierRequests == 0 && events.isEmpty) else { return }
        batch.settle()
        let next = state.withLock { state -> Batch in
            for event in events where event.isOpening { state.apply(event) }
            state.add(batch)
            for event in events where !event.isOpening { state.apply(event) }
            let fullExamples = state.providers[batch.namedProvider ?? .unauthenticated]?.fullExamples ?? 0
            return Batch(following: batch, fullExamples: fullExamples, history: state.history, generation: state.generation)
        }
        batch = next
    }

    /// One connection's requests since it last told, counted: per provider (nearly always one).
    struct Batch {
        var tallies: [(provider: ProviderIdentity, tally: ProviderTally)] = []
        var connectionID: UInt64?
        /// The provider the connection's first request named (or its certificate's): a request
        /// that names none, refused before authentication, is put down to it.
        var namedProvider: ProviderIdentity?
        /// The example kinds the named provider's report has full, as `ProviderTally.fullExamples`.
        var fullExamples: UInt32 = 0
        var requests = 0
        /// The recorder's history of tokens, for the rules that look across requests.
        let history: TokenHistory?
        /// The recorder's clears when the batch's requests were counted: requests counted before
        /// a clear are not the report's, only the connection's use.
        private(set) var generation: UInt64
        private(set) var earlierRequests = 0

        init(provider: ProviderIdentity?, history: TokenHistory?, generation: UInt64) {
            namedProvider = provider
            self.history = history
            self.generation = generation
        }

        init(following earlier: Batch, fullExamples: UInt32, history: TokenHistory?, generation: UInt64) {
            connectionID = earlier.connectionID
            namedProvider = earlier.namedProvider
            self.fullExamples = fullExamples
            self.history = history
            self.generation = generation
            tallies.reserveCapacity(1)
        }

        mutating func count(_ exchange: ProviderExchange) {
            connectionID = exchange.connectionID
            if namedProvider == nil, let named = exchange.provider { namedProvider = named }
            let provider = exchange.provider ?? namedProvider ?? .unauthenticated
            requests += 1
            let index: Int
            if let found = tallies.firstIndex(where: { $0.provider == provider }) {
                index = found
            } else {
                var fresh = ProviderTally()
                if provider == namedProvider { fresh.fullExamples = fullExamples }
                tallies.append((provider, fresh))
                index = tallies.count - 1
            }
            tallies[index].tally.count(exchange)
            if let token = exchange.deviceToken, let history {
                let verdict = history.follow(
                    token: RequestFingerprint.of(token), request: exchange.requestHash, time: exchange.time, status: exchange.status, reason: exchange.reason
                )
                tallies[index].tally.count(verdict, of: exchange)
            }
        }

        /// The report was cleared: what the batch counted is the connection's earlier use.
        mutating func forget(upTo generation: UInt64) {
            earlierRequests += requests
            requests = 0
            tallies.removeAll()
            self.generation = generation
        }

        mutating func settle() {
            for index in tallies.indices { tallies[index].tally.settle() }
        }
    }

    public func report(now: EpochMilliseconds) -> ProviderReport {
        state.withLock { $0.report(now: now, recording: isRecording) }
    }

    struct State {
        var since: EpochMilliseconds?
        var history: TokenHistory?
        var generation: UInt64 = 0
        var providers: [ProviderIdentity: ProviderTally] = [:]
        var connections: [UInt64: ConnectionTally] = [:]
        var closedOrder: [UInt64] = []
        var connectionsFollowed = 0

        mutating func add(_ batch: Batch) {
            guard let id = batch.connectionID else { return }
            // Requests counted before a clear only say how long their connection was used.
            let counted = batch.generation == generation
            // Taken out and put back, not copied: a copy would copy its statuses at the first change.
            if var connection = connections.removeValue(forKey: id) {
                if counted {
                    connection.requests += batch.requests
                    connection.earlierRequests += batch.earlierRequests
                    for (_, tally) in batch.tallies {
                        for (status, count) in tally.statuses { connection.statuses[status, default: 0] += count }
                    }
                } else {
                    connection.earlierRequests += batch.requests + batch.earlierRequests
                }
                if connection.provider == nil, let named = batch.namedProvider {
                    connection.provider = named
                    providers[named, default: ProviderTally()].connectionsOpened += 1
                    // Streams refused before the connection's first request named its provider.
                    countRefusals(connection.streamLimitExceeded, on: connection, firstAt: connection.firstRefusalAt, for: named)
                }
                connections[id] = connection
            }
            guard counted else { return }
            for (provider, tally) in batch.tallies { providers[provider, default: ProviderTally()].merge(tally) }
        }

        mutating func apply(_ event: ProviderConnectionEvent) {
            switch event {
            case .opened(let id, let at, let environment, let provider, let streamLimit):
                connectionsFollowed += 1
                connections[id] = ConnectionTally(id: id, environment: environment, provider: provider, openedAt: at, streamLimit: streamLimit)
                if let provider { providers[provider, default: ProviderTally()].connectionsOpened += 1 }
            case .answered(let id, let latencies, let peakInFlight, let streamLimit):
                guard connections[id] != nil else { return }
                connections[id]!.peakInFlight = max(connections[id]!.peakInFlight, peakInFlight)
                connections[id]!.streamLimit = streamLimit
                let provider = connections[id]!.provider ?? .unauthenticated
                providers[provider, default: ProviderTally()].record(latencies: latencies)
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
