import Synchronization

/// Collects what the provider connections tell it while recording is on, and makes the report.
/// Off, it costs a connection one atomic read per read of its socket.
public final class ProviderReportRecorder: Sendable {
    /// Past these, the rules that look back stop remembering more (a load test with millions of
    /// tokens still gets every count; only a retry or a 410 older than the cap goes unseen).
    static let tokensRemembered = 1_000_000
    static let closedConnectionsKept = 1_000

    private let recording = Atomic<Bool>(false)
    private let state = Mutex(State())

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
    public func record(_ exchanges: [ProviderExchange], events: [ProviderConnectionEvent]) {
        guard isRecording, !(exchanges.isEmpty && events.isEmpty) else { return }
        state.withLock { state in
            for event in events where event.isOpening { state.apply(event) }
            for exchange in exchanges { state.count(exchange) }
            for event in events where !event.isOpening { state.apply(event) }
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
        var sent = RecentWindow<(status: Int, reason: APNsErrorReason?)>(
            windowMilliseconds: ProviderReportRules.retryWindowMilliseconds, capacity: ProviderReportRecorder.tokensRemembered
        )
        var throttled = RecentWindow<Void>(
            windowMilliseconds: ProviderReportRules.backOffAfter429Milliseconds, capacity: ProviderReportRecorder.tokensRemembered
        )
        /// Tokens answered 410, by hash, with the time of that answer.
        var gone: [Int: EpochMilliseconds] = [:]

        mutating func count(_ exchange: ProviderExchange) {
            let provider = attribute(exchange)
            connections[exchange.connectionID]?.requests += 1
            connections[exchange.connectionID]?.statuses[exchange.status, default: 0] += 1
            var tally = providers.removeValue(forKey: provider) ?? ProviderTally()
            tally.count(exchange)
            if let token = exchange.deviceToken { followToken(token, of: exchange, into: &tally) }
            providers[provider] = tally
        }

        /// The exchange's provider, which becomes its connection's if the connection had none.
        private mutating func attribute(_ exchange: ProviderExchange) -> ProviderIdentity {
            let connectionProvider = connections[exchange.connectionID]?.provider
            guard let provider = exchange.provider else { return connectionProvider ?? .unauthenticated }
            if connectionProvider == nil, connections[exchange.connectionID] != nil {
                connections[exchange.connectionID]?.provider = provider
                providers[provider, default: ProviderTally()].connectionsOpened += 1
            }
            return provider
        }

        private mutating func followToken(_ token: DeviceTokenKey, of exchange: ProviderExchange, into tally: inout ProviderTally) {
            let tokenHash = token.hashValue
            let time = exchange.time
            if let goneAt = gone[tokenHash] {
                tally.pushesAfter410 += 1
                tally.note(.pushedAfter410, "\(ProviderTally.describe(exchange)), answered 410 at \(ISO8601Milliseconds.format(goneAt))")
            } else if exchange.status == 410, gone.count < ProviderReportRecorder.tokensRemembered {
                gone[tokenHash] = time
            }
            if let throttledAt = throttled.recent(tokenHash, now: time)?.time {
                tally.ignored429 += 1
                tally.note(.ignored429, "\(ProviderTally.describe(exchange)), \(time - throttledAt) ms after its 429")
            }
            if exchange.reason == .tooManyRequests { throttled.keep(tokenHash, (), at: time) }
            var hasher = Hasher()
            hasher.combine(tokenHash)
            hasher.combine(exchange.requestHash)
            let key = hasher.finalize()
            // Two connections' reads may be told out of order: only a later push retries an earlier one.
            if let earlier = sent.recent(key, now: time), earlier.time > time { return }
            if let earlier = sent.recent(key, now: time) {
                tally.retries.count(after: earlier.value.status)
                let after = "\(ProviderTally.describe(exchange)), \(time - earlier.time) ms after the same push was answered \(earlier.value.status)"
                switch earlier.value.status {
                case 200..<300: tally.note(.duplicatePush, after)
                case 400, 404, 405, 413: tally.note(.retriedRefusal, "\(after) \(earlier.value.reason?.rawValue ?? "")")
                default: break
                }
            }
            sent.keep(key, (exchange.status, exchange.reason), at: time)
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
                guard connections[id] != nil else { return }
                connections[id]!.streamLimitExceeded += 1
                let provider = connections[id]!.provider ?? .unauthenticated
                providers[provider, default: ProviderTally()].streamLimitExceeded += 1
                providers[provider, default: ProviderTally()].note(
                    .streamLimitExceeded, "connection \(id) at \(ISO8601Milliseconds.format(at)): a stream refused past the connection's limit"
                )
            case .closed(let id, let at, let goAway, let forErrors):
                guard var connection = connections[id], connection.closedAt == nil else { return }
                connection.closedAt = at
                connection.goAway = goAway
                connection.closedForErrors = forErrors
                connections[id] = connection
                close(connection)
            }
        }

        private mutating func close(_ connection: ConnectionTally) {
            closedOrder.append(connection.id)
            if closedOrder.count > ProviderReportRecorder.closedConnectionsKept * 2 {
                let dropped = closedOrder.count - ProviderReportRecorder.closedConnectionsKept
                for id in closedOrder.prefix(dropped) { connections.removeValue(forKey: id) }
                closedOrder.removeFirst(dropped)
            }
            // A connection that never sent a request belongs to nobody.
            guard let provider = connection.provider else { return }
            var tally = providers.removeValue(forKey: provider) ?? ProviderTally()
            let lifetime = (connection.closedAt ?? connection.openedAt) - connection.openedAt
            let requests = connection.requests + connection.earlierRequests
            if tally.closedConnections.count < ProviderTally.connectionsKept {
                tally.closedConnections.append((lifetime, requests))
            }
            if requests <= ProviderReportRules.shortConnectionRequests {
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
