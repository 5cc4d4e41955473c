/// What an injected fault does to a request, for every API the connection serves.
extension APNsProviderConnection {
    enum FaultEffect {
        /// Answer with this reason, whatever the request.
        case respond(APNsErrorReason)
        /// Run the rules, and answer this much later.
        case delay(Int64)
        /// No answer: the stream is reset, or the connection goes away.
        case outcome(APNsOutcome)
    }

    /// The fault the injector picks for `request`, if any, decided here (the channel API's: a
    /// cluster node counts its rules on its own). Call only when `faults?.mayFault`.
    func faultEffect(for request: APNsRequest, now: EpochMilliseconds) -> FaultEffect? {
        faults?.fault(for: request, connection: info, now: now).map(effect(of:))
    }

    func effect(of fault: Fault) -> FaultEffect {
        switch fault {
        case .respond(let reason): return .respond(reason)
        case .delay(let milliseconds): return .delay(milliseconds)
        case .goAway(let reason):
            noteGoAway(.goAway(reason))
            return .outcome(APNsOutcome(nil, actions: [.goAway(reason)]))
        case .resetStream: return .outcome(APNsOutcome(nil))
        case .closeConnection: return .outcome(APNsOutcome(nil, actions: [.close]))
        }
    }
}
