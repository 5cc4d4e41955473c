/// A cluster's admission (`PushAdmission`): a push that passed every rule of this node waits
/// for the engine's verdict. Its answer is held by the transport; its record, its stream-limit
/// change and its error charge are made when the verdict comes, as if the rules had decided it.
extension APNsProviderConnection {
    /// A push that passed the rules, its answer held until its verdict.
    struct AwaitingAdmission {
        var push: AcceptedPush
        /// The 200 it would get, and its record.
        var response: APNsResponse
        var record: RequestLog.Entry
    }

    /// Holds the answer of a push that passed the rules; returns its provisional outcome.
    func awaitAdmission(_ attempt: PushAttempt, response: APNsResponse, delay: Int64, actions: [ConnectionAction]) -> APNsOutcome {
        awaiting.append(AwaitingAdmission(push: acceptedPush(attempt), response: response, record: recordEntry(attempt, response)))
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
        admission.admit(sent.map(\.push), limit: shortcuts.rateLimit) { verdicts in done(ticket, verdicts) }
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
            let response = APNsResponse.failure(rejection.reason, apnsID: pending.response.apnsIDValue, timestamp: rejection.timestamp)
            pending.record.status = response.status
            pending.record.reason = response.reason
            unpublishedRecords.append(pending.record)
            return APNsOutcome(response, actions: actions)
        }
    }
}
