import Synchronization

/// A cluster's admission (`PushAdmission`): a push that passed every rule of this node waits
/// for the engine's verdict. Its answer is held by the transport; its record, its stream-limit
/// change and its error charge are made when the verdict comes, as if the rules had decided it.
extension APNsProviderConnection {
    /// A push or a broadcast that passed the rules, its answer held until its verdict.
    struct AwaitingAdmission {
        var item: Item
        /// The 200 it would get, and its record.
        var response: APNsResponse
        var record: RequestLog.Entry
        /// Its part of the provider report, while that records.
        var exchange: ProviderExchange? = nil

        enum Item {
            case push(AcceptedPush)
            case broadcast(AcceptedBroadcast)
            case channel(ChannelChange)
            /// A request a counted fault rule selects, before any other rule saw it.
            case faultCheck(FaultCheck, PushAttempt)
        }
    }

    /// Holds a request until the engine says whether the counted rule `check` fires for it
    /// (every node's requests count). Should the engine not say, the answer is a 500.
    func awaitFaultCheck(_ check: FaultCheck, _ attempt: PushAttempt) -> APNsOutcome {
        let failed = APNsResponse.failure(.internalServerError, apnsID: attempt.apnsID, timestamp: nil)
        awaiting.append(AwaitingAdmission(item: .faultCheck(check, attempt), response: failed, record: recordEntry(attempt, failed)))
        return APNsOutcome(nil, isHeld: true)
    }

    /// Holds the answer of a push that passed the rules; returns its provisional outcome.
    func awaitAdmission(_ attempt: PushAttempt, response: APNsResponse, delay: Int64, actions: [ConnectionAction]) -> APNsOutcome {
        awaiting.append(AwaitingAdmission(
            item: .push(acceptedPush(attempt)), response: response, record: recordEntry(attempt, response),
            exchange: reporting == nil ? nil : exchange(attempt, response)
        ))
        return APNsOutcome(response, delayMilliseconds: delay, actions: actions, isHeld: true)
    }

    /// Holds the answer of a broadcast that passed the rules (it reaches the phones through the
    /// engine, once it is there), or of a channel created or deleted (every node's world has it
    /// first).
    func awaitAdmission(_ item: AwaitingAdmission.Item, response: APNsResponse, record: RequestLog.Entry, delay: Int64, actions: [ConnectionAction]) -> APNsOutcome {
        awaiting.append(AwaitingAdmission(item: item, response: response, record: record))
        return APNsOutcome(response, delayMilliseconds: delay, actions: actions, isHeld: true)
    }

    /// Sends the pushes awaiting admission since the last call to the engine; `done` is called
    /// once, on any thread, with their ticket and verdicts. Nil when none awaits.
    func requestVerdicts(_ done: @escaping @Sendable (AnswerTicket, [AdmissionVerdict]) -> Void) -> AnswerTicket? {
        guard let admission, !awaiting.isEmpty else { return nil }
        admissionNumber += 1
        let ticket = AnswerTicket(admissionNumber)
        let sent = awaiting
        awaiting.removeAll(keepingCapacity: true)
        admitted[ticket] = sent
        shortcuts.refreshRateLimiter(from: service)
        var pushes: [AcceptedPush] = []
        var others: [(index: Int, item: AwaitingAdmission.Item)] = []
        var checks: [(index: Int, check: FaultCheck)] = []
        for (index, pending) in sent.enumerated() {
            switch pending.item {
            case .push(let push): pushes.append(push)
            case .faultCheck(let check, _): checks.append((index, check))
            default: others.append((index, pending.item))
            }
        }
        guard !others.isEmpty || !checks.isEmpty else {
            admission.admit(pushes, limit: shortcuts.rateLimit) { verdicts in done(ticket, verdicts) }
            return ticket
        }
        // The verdicts in the order they were sent, once the pushes', the checks' and each other
        // item's are in.
        let verdicts = AdmissionVerdicts(
            count: sent.count, others: others.map(\.index) + checks.map(\.index), parts: 1 + others.count + (checks.isEmpty ? 0 : 1)
        ) { done(ticket, $0) }
        admission.admit(pushes, limit: shortcuts.rateLimit) { verdicts.fill(pushes: $0) }
        for (index, item) in others {
            switch item {
            case .push, .faultCheck: break
            case .broadcast(let broadcast): admission.admit(broadcast: broadcast) { verdicts.fill(index, $0) }
            case .channel(let change): admission.admit(channel: change) { verdicts.fill(index, $0) }
            }
        }
        if !checks.isEmpty {
            let indices = checks.map(\.index)
            admission.check(faults: checks.map(\.check)) { results in verdicts.fill(indices, results.map(AdmissionVerdict.checked)) }
        }
        return ticket
    }

    /// The final outcomes of the pushes sent with `ticket`, in their order, recorded.
    func finishHeldAnswers(_ ticket: AnswerTicket, verdicts: [AdmissionVerdict]) -> [APNsOutcome] {
        guard let sent = admitted.removeValue(forKey: ticket) else { return [] }
        return sent.indices.map { index in
            var pending = sent[index]
            let verdict = index < verdicts.count ? verdicts[index] : .failed
            if case .faultCheck(let check, var attempt) = pending.item { return finishFaultCheck(check, &attempt, verdict: verdict) }
            let rejection: Rejection? = switch verdict {
            case .accepted: nil
            case .unregistered(let since): Rejection(.unregistered, timestamp: since)
            case .expired(let since): Rejection(.expiredToken, timestamp: since)
            case .tooManyRequests: Rejection(.tooManyRequests)
            case .failed, .checked: Rejection(.internalServerError)
            }
            guard let rejection else {
                unpublishedRecords.append(pending.record)
                if let exchange = pending.exchange { reportExchange(exchange) }
                return APNsOutcome(pending.response)
            }
            var actions: [ConnectionAction] = []
            if let goAway = chargeError(rejection.reason) { actions.append(goAway) }
            if let limit = streamLimitChange(after: rejection) { actions.insert(.setMaxConcurrentStreams(limit), at: 0) }
            let response: APNsResponse
            switch pending.item {
            case .push, .faultCheck:
                response = .failure(rejection.reason, apnsID: pending.response.apnsIDValue, timestamp: rejection.timestamp)
            case .broadcast(let broadcast):
                response = .failure(rejection.reason, requestID: broadcast.requestID)
            case .channel(let change):
                // No other node has it: neither has this one.
                switch change {
                case .created(let channel): world.channels.delete(channel.id, environment: channel.environment)
                case .deleted(let channel): world.channels.add(channel)
                }
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
    /// A request the engine counted for a fault rule: the rule's fault if it fired, or the rules
    /// after it and then APNs's (which may hold it again, for the next counted rule or for its
    /// push's admission). An engine that did not answer makes it a 500.
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

/// A ticket's verdicts, gathered from its pushes' admission and each other item's (a broadcast,
/// a channel), in the order the requests came; `done` once all are in.
final class AdmissionVerdicts: Sendable {
    private let state: Mutex<(verdicts: [AdmissionVerdict], parts: Int)>
    private let others: [Int]
    private let done: @Sendable ([AdmissionVerdict]) -> Void

    init(count: Int, others: [Int], parts: Int, done: @escaping @Sendable ([AdmissionVerdict]) -> Void) {
        state = Mutex((Array(repeating: .failed, count: count), parts))
        self.others = others
        self.done = done
    }

    /// The pushes' verdicts, in their order, into the places the other items leave.
    func fill(pushes verdicts: [AdmissionVerdict]) {
        let others = Set(self.others)
        finish { all in
            var next = verdicts.makeIterator()
            for index in all.indices where !others.contains(index) { all[index] = next.next() ?? .failed }
        }
    }

    func fill(_ index: Int, _ verdict: AdmissionVerdict) {
        finish { $0[index] = verdict }
    }

    /// Several items' verdicts, as one part.
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
