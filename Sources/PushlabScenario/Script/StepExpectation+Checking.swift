import PushlabCore

extension StepExpectation {
    /// Every way `answer` and `observations` (the step's, oldest first, already narrowed to the
    /// step's device where patterns name none) fall short; empty when the step passed.
    func failures(answer: APNsAnswer?, observations: [JSONValue], stepDevice: String?, serviceAnswer: JSONValue? = nil) -> [String] {
        var failures: [String] = []
        if expectsAnswer {
            failures += answerFailures(answer)
        }
        if let response {
            if let serviceAnswer {
                if !ObservationPattern.contains(serviceAnswer, response) { failures.append("expected the service to answer \(response), got \(serviceAnswer)") }
            } else {
                failures.append("expected a service's answer; the step called no service")
            }
        }
        let inScope = { (pattern: ObservationPattern) in
            observations.filter { observation in
                guard let device = pattern.deviceID ?? stepDevice else { return true }
                return observation["deviceId"]?.stringValue == device
            }
        }
        // Order is kept per device: where the next pattern for that device may start matching.
        var searchFrom: [String: Int] = [:]
        for pattern in self.observations {
            let scope = inScope(pattern)
            let key = pattern.deviceID ?? stepDevice ?? ""
            let start = searchFrom[key] ?? 0
            if let index = scope[min(start, scope.count)...].firstIndex(where: pattern.matches) {
                searchFrom[key] = index + 1
            } else if scope.contains(where: pattern.matches) {
                failures.append("observed \(pattern), but not in the expected order")
            } else {
                failures.append("expected an observation \(pattern); none matched")
            }
        }
        for pattern in absent {
            if let found = inScope(pattern).first(where: pattern.matches) {
                failures.append("expected no observation \(pattern), but saw \(found)")
            }
        }
        if nothingObserved {
            let seen = observations.filter { stepDevice == nil || $0["deviceId"]?.stringValue == stepDevice }
            if let first = seen.first {
                failures.append("expected nothing observed, but saw \(seen.count): first \(first)")
            }
        }
        return failures
    }

    private func answerFailures(_ answer: APNsAnswer?) -> [String] {
        guard let answer else { return ["expected an APNs answer; the step sent no push"] }
        var failures: [String] = []
        if let status, answer.status != status {
            failures.append("expected status \(status), got \(answer.summary)")
        }
        if let reason, answer.reason != reason {
            failures.append("expected reason \(reason), got \(answer.reason.map { $0 } ?? "none") (\(answer.summary))")
        }
        switch timestamp {
        case nil: break
        case .present:
            if answer.timestamp == nil { failures.append("expected a timestamp, got none (\(answer.summary))") }
        case .exactly(let wanted):
            if answer.timestamp != wanted {
                failures.append("expected timestamp \(wanted) (\(ISO8601Milliseconds.format(wanted))), got \(answer.timestamp.map(String.init) ?? "none")")
            }
        }
        return failures
    }
}
