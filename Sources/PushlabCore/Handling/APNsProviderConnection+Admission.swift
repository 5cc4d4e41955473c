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

        enum Item {
            case push(AcceptedPush)
            case broadcast(AcceptedBroadcast)
            case channel(ChannelChange)
        }
    }

    /// Holds the answer of a push that passed the rules; returns its provisional outcome.
    func awaitAdmission(_ attempt: PushAttempt, response: APNsResponse, delay: Int64, actions: [ConnectionAction]) -> APNsOutcome {
        awaiting.append(AwaitingAdmission(item: .push(acceptedPush(attempt)), response: response, record: recordEntry(attempt, response)))
        return APNsOutcome(response, delayMilliseconds: delay, actions: actions, awaitsAdmission: true)
    }

    /// Holds the answer of a broadcast that passed the rules (it reaches the phones through the
    /// engine, once it is there), or of a channel created or deleted (every node's world has it
    /// first).
    func awaitAdmission(_ item: AwaitingAdmission.Item, response: APNsResponse, record: RequestLog.Entry, delay: Int64, actions: [ConnectionAction]) -> APNsOutcome {
        awaiting.append(AwaitingAdmission(item: item, response: response, record: record))
        return APNsOutcome(response, delayMilliseconds: delay, actions: actions, awaitsAdmission: true)
    }

    /// Sends the pushes awaiting admission since the last call to the engine; `done` is called
    /// once, on any thread, with their ticket and verdicts. Nil when none awaits.
    func requestAdmission(_ done: @escaping @Sendable (AdmissionTicket, [AdmissionVerdict]) -> Void) -> AdmissionTicket? {
        guard let admission, !awaiting.isEmpty else { return nil }
        admissionNumber += 1
        let ticket = AdmissionTicket(admissionNumber)
        let sent = awaiting
        awaiting.removeAll(keepingCapacity: true)
        admitted[ticket] = sent
        shortcuts.refreshRateLimiter(from: service)
        var pushes: [AcceptedPush] = []
        var others: [(index: Int, item: AwaitingAdmission.Item)] = []
        for (index, pending) in sent.enumerated() {
            if case .push(let push) = pending.item { pushes.append(push) } else { others.append((index, pending.item)) }
        }
        guard !others.isEmpty else {
            admission.admit(pushes, limit: shortcuts.rateLimit) { verdicts in done(ticket, verdicts) }
            return ticket
        }
        // The verdicts in the order they were sent, once the pushes' and each other item's are in.
        let verdicts = AdmissionVerdicts(count: sent.count, others: others.map(\.index), parts: 1 + others.count) { done(ticket, $0) }
        admission.admit(pushes, limit: shortcuts.rateLimit) { verdicts.fill(pushes: $0) }
        for (index, item) in others {
            switch item {
            case .push: break
            case .broadcast(let broadcast): admission.admit(broadcast: broadcast) { verdicts.fill(index, $0) }
            case .channel(let change): admission.admit(channel: change) { verdicts.fill(index, $0) }
            }
        }
        return ticket
    }

    /// The final outcomes of the pushes sent with `ticket`, in their order, recorded.
    func finishAdmission(_ ticket: AdmissionTicket, verdicts: [AdmissionVerdict]) -> [APNsOutcome] {
        guard let sent = admitted.removeValue(forKey: ticket) else { return [] }
        return sent.indices.map { index in
            var pending = sent[index]
            let verdict = index < verdicts.count ? verdicts[index] : .failed
            let rejection: Rejection? = switch verdict {
            case .accepted: nil
            case .unregistered(let since): Rejection(.unregistered, timestamp: since)
            case .expired(let since): Rejection(.expiredToken, timestamp: since)
            case .tooManyRequests: Rejection(.tooManyRequests)
            case .failed: Rejection(.internalServerError)
            }
            guard let rejection else {
                unpublishedRecords.append(pending.record)
                return APNsOutcome(pending.response)
            }
            var actions: [ConnectionAction] = []
            if let goAway = chargeError(rejection.reason) { actions.append(goAway) }
            if let limit = streamLimitChange(after: rejection) { actions.insert(.setMaxConcurrentStreams(limit), at: 0) }
            let response: APNsResponse
            switch pending.item {
            case .push:
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
            return APNsOutcome(response, actions: actions)
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

    private func finish(_ change: (inout [AdmissionVerdict]) -> Void) {
        let complete: [AdmissionVerdict]? = state.withLock { state in
            change(&state.verdicts)
            state.parts -= 1
            return state.parts == 0 ? state.verdicts : nil
        }
        if let complete { done(complete) }
    }
}
