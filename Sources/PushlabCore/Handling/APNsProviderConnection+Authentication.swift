/// Certificate and provider-token authentication, and the topic rules that depend on them
/// (reference 4 and 5; steps 1, 5 and 6 of 7.3).
extension APNsProviderConnection {
    /// Certificate connections: the certificate must be trusted, current, and for this environment.
    func checkCertificate(_ attempt: PushAttempt) throws(Rejection) {
        guard let certificate, let presented = info.clientCertificate else { return }
        if !certificate.environments.contains(attempt.environment) {
            throw Rejection(.badCertificateEnvironment, goAway: true)
        }
        let now = attempt.receivedAt
        if !presented.isTrusted || presented.notAfter * 1000 < now || presented.notBefore * 1000 > now {
            throw Rejection(.badCertificate)
        }
    }

    /// Token connections only: "APNs ignores this header if you use certificate-based authentication".
    func authenticate(_ attempt: PushAttempt) throws(Rejection) {
        guard certificate == nil else { return }
        let refusal = attempt.withField(.authorization) {
            tokenAuthenticator.authenticate($0, environment: attempt.environment, now: attempt.receivedAt)
        }
        if let refusal { throw Rejection(refusal) }
    }

    func checkTopic(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let topic = attempt.topic else { throw Rejection(.missingTopic) }
        if let certificate {
            if !certificate.topics.contains(topic.value) { throw Rejection(.badTopic) }
        } else {
            if let key = tokenAuthenticator.currentKey, !key.mayPush(toBundle: topic.bundleID) {
                throw Rejection(.invalidProviderToken)
            }
            // The team and its bundle ids are bound to the connection at its first push (A3).
            guard appIsBoundToConnection(topic.bundleID) else { throw Rejection(.topicDisallowed) }
        }
        try checkPushType(&attempt)
    }

    /// The push type against the topic's suffix (O11, O13), and the priorities each type allows.
    private func checkPushType(_ attempt: inout PushAttempt) throws(Rejection) {
        let topic = attempt.topic!
        if let suffixType = topic.suffixType {
            if let declared = attempt.pushType, declared != suffixType { throw Rejection(.invalidPushType) }
            attempt.pushType = suffixType
        }
        try checkPriority(for: &attempt)
    }

    /// "Always use priority 5. Using priority 10 is an error" for background pushes: accepted and
    /// never delivered (O17), or `BadPriority` in strict mode. Live Activities take 5 or 10 (A9).
    func checkPriority(for attempt: inout PushAttempt) throws(Rejection) {
        switch attempt.pushType {
        case .background where attempt.priority == 10:
            if policy.strictBackgroundPriority { throw Rejection(.badPriority) }
            attempt.isDeliverable = false
        case .liveactivity where attempt.priority == 1:
            throw Rejection(.badPriority)
        default:
            break
        }
    }
}
