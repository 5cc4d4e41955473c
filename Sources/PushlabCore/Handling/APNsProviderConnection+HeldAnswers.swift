import Synchronization

/// Answers that wait for a verdict: a sink's that decides later (`PushSink.verdictNow` is nil:
/// a cluster's engine), or a fault counter's. The transport holds the answer; its record, its
/// stream-limit change and its error charge are made when the verdict comes, as if the rules
/// had decided it.
extension APNsProviderConnection {
    /// A push, a broadcast or a channel change that passed the rules, or a request a counted
    /// fault rule selects, its answer held until its verdict.
    struct AwaitingVerdict {
        var item: Item
        /// The 200 it would get, and its record.
        var response: APNsResponse
        var record: RequestLog.Entry
        /// Its part of the provider report, while that records.
        var exchange: ProviderExchange? = nil

        enum Item {
            /// What the sink decides.
            case sink(SinkItem)
            /// A request a counted fault rule selects, before any other rule saw it.
            case faultCheck(FaultCheck, PushAttempt)
        }
    }

    /// Holds a request until the fault counter says whether the counted rule `check` fires for
    /// it (every node's requests count). Should the counter not say, the answer is a 500.
    func awaitFaultCheck(_ check: FaultCheck, _ attempt: PushAttempt) -> APNsOutcome {
        let failed = APNsResponse.failure(.internalServerError, apnsID: attempt.apnsID, timestamp: nil)
        awaiting.append(AwaitingVerdict(item: .faultCheck(check, attempt), response: failed, record: recordEntry(attempt, failed)))
        return APNsOutcome(nil, isHeld: true)
    }

    /// Holds the answer of a push that passed the rules; returns its provisional outcome.
    func awaitVerdict(_ attempt: PushAttempt, response: APNsResponse, delay: Int64, actions: [ConnectionAction]) -> APNsOutcome {
        awaiting.append(AwaitingVerdict(
            item: .sink(.push(acceptedPush(attempt))), response: response, record: recordEntry(attempt, response),
            exchange: reporting == nil ? nil : exchange(attempt, response)
        ))
        return APNsOutcome(response, delayMilliseconds: delay, actions: actions, isHeld: true)
    }

    /// Holds the answer of a broadcast or a channel change that passed the rules, when the sink
    /// decides it later (it reaches every node's phones, or every node's world, first).
    func awaitVerdict(on item: SinkItem, response: APNsResponse, record: RequestLog.Entry, delay: Int64, actions: [ConnectionAction]) -> APNsOutcome {
        awaiting.append(AwaitingVerdict(item: .sink(item), response: response, record: record))
        return APNsOutcome(response, delayMilliseconds: delay, actions: actions, isHeld: true)
    }

    /// Asks the sink and the fault counter for the verdicts on what was held since the last
    /// call; `done` is called once, on any thread, with their ticket and verdicts. Nil when
    /// nothing is held.
    func requestVerdicts(_ done: @escaping @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void) -> AnswerTicket? {
        guard !awaiting.isEmpty else { return nil }
        lastTicket += 1
        let ticket = AnswerTicket(lastTicket)
        let sent = awaiting
        awaiting.removeAll(keepingCapacity: true)
        asked[ticket] = sent
        shortcuts.refreshRateLimiter(from: service)
        var items: [SinkItem] = []
        var checks: [(index: Int, check: FaultCheck)] = []
        items.reserveCapacity(sent.count)
        for (index, pending) in sent.enumerated() {
            switch pending.item {
            case .sink(let item): items.append(item)
            case .faultCheck(let check, _): checks.append((index, check))
            }
        }
        guard !checks.isEmpty else {
            sink.decide(items, limit: shortcuts.rateLimit) { verdicts in done(ticket, verdicts) }
            return ticket
        }
        // The verdicts in the order they were held, once the sink's and the counter's are in.
        let verdicts = GatheredVerdicts(count: sent.count, counted: checks.map(\.index), parts: items.isEmpty ? 1 : 2) { done(ticket, $0) }
        if !items.isEmpty { sink.decide(items, limit: shortcuts.rateLimit) { verdicts.fillOthers($0) } }
        let indices = checks.map(\.index)
        let faults = faults
        if let faults {
            faults.check(checks.map(\.check)) { results in verdicts.fill(indices, results.map(AdmissionVerdict.checked)) }
        } else {
            verdicts.fill(indices, [])
        }
        return ticket
    }

    /// The final outcomes of the answers asked for with `ticket`, in their order, recorded.
    func finishHeldAnswers(_ ticket: AnswerTicket, verdicts: [AdmissionVerdict]) -> [APNsOutcome] {
        guard let sent = asked.removeValue(forKey: ticket) else { return [] }
        return sent.indices.map { index in
            var pending = sent[index]
            let verdict = index < verdicts.count ? verdicts[index] : .failed
            if case .faultCheck(let check, var attempt) = pending.item { return finishFaultCheck(check, &attempt, verdict: verdict) }
            guard let rejection = Rejection(verdict: verdict) else {
                unpublishedRecords.append(pending.record)
                if let exchange = pending.exchange { reportExchange(exchange) }
                return APNsOutcome(pending.response)
            }
            var actions: [ConnectionAction] = []
            if let goAway = chargeError(rejection.reason) { actions.append(goAway) }
            if let limit = streamLimitChange(after: rejection) { actions.insert(.setMaxConcurrentStreams(limit), at: 0) }
            let response: APNsResponse
            switch pending.item {
            case .sink(.push), .faultCheck:
                response = .failure(rejection.reason, apnsID: pending.response.apnsIDValue, timestamp: rejection.timestamp)
            case .sink(.broadcast(let broadcast)):
                response = .failure(rejection.reason, requestID: broadcast.requestID)
            case .sink(.channel(let change)):
                undo(change)
                response = .failure(rejection.reason, requestID: pending.record.apnsIDValue)
            }
            pending.record.status = response.status
            pending.record.reason = response.reason
            unpublishedRecords.append(pending.record)
            if var exchange = pending.exchange {
                exchange.status = response.status
                exchange.reason = response.reason
                reportExchange(exchange)
            }
            return APNsOutcome(response, actions: actions)
        }
    }
}

extension APNsProviderConnection {
    /// A channel change the sink refused: no other node has it, and neither has this one.
    func undo(_ change: ChannelChange) {
        switch change {
        case .created(let channel): world.channels.delete(channel.id, environment: channel.environment)
        case .deleted(let channel): world.channels.add(channel)
        }
    }

    /// A request the engine counted for a fault rule: the rule's fault if it fired, or the rules
    /// after it and then APNs's (which may hold it again, for the next counted rule or for its
    /// push's verdict). A counter that did not answer makes it a 500.
    func finishFaultCheck(_ check: FaultCheck, _ attempt: inout PushAttempt, verdict: AdmissionVerdict) -> APNsOutcome {
        guard case .checked(let result) = verdict else { return finish(&attempt, rejection: Rejection(.internalServerError), delay: 0) }
        if result == .firesLast || result == .spent { faults?.ruleSpent(check.rule) }
        switch result {
        case .fires, .firesLast:
            return respond(to: &attempt, after: .fault(check.fault))
        case .passes, .spent:
            let next = faults?.decision(for: attempt.request, connection: info, now: attempt.receivedAt, after: check.rule)
            return respond(to: &attempt, after: next)
        }
    }
}

/// A ticket's verdicts, gathered from the sink's and the fault counter's, in the order the
/// answers were held; `done` once both are in.
final class GatheredVerdicts: Sendable {
    private let state: Mutex<(verdicts: [AdmissionVerdict], parts: Int)>
    private let counted: [Int]
    private let done: @Sendable ([AdmissionVerdict]) -> Void

    init(count: Int, counted: [Int], parts: Int, done: @escaping @Sendable ([AdmissionVerdict]) -> Void) {
        state = Mutex((Array(repeating: .failed, count: count), parts))
        self.counted = counted
        self.done = done
    }

    /// The sink's verdicts, in their order, into the places the counted requests leave.
    func fillOthers(_ verdicts: [AdmissionVerdict]) {
        let counted = Set(self.counted)
        finish { all in
            var next = verdicts.makeIterator()
            for index in all.indices where !counted.contains(index) { all[index] = next.next() ?? .failed }
        }
    }

    /// The counter's verdicts, as one part.
    func fill(_ indices: [Int], _ verdicts: [AdmissionVerdict]) {
        finish { all in
            for (index, verdict) in zip(indices, verdicts) { all[index] = verdict }
        }
    }

    private func finish(_ change: (inout [AdmissionVerdict]) -> Void) {
        let complete: [AdmissionVerdict]? = state.withLock { state in
            change(&state.verdicts)
            state.parts -= 1
            return state.parts == 0 ? state.verdicts : nil
        }
        if let complete { done(complete) }
    }
}
