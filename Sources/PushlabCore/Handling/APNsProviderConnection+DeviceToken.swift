/// The device token: its format, whether APNs knows it for this environment and topic, whether
/// it still works, and how often it is pushed to (steps 8 to 10 of 7.3).
extension APNsProviderConnection {
    func checkDeviceTokenFormat(_ attempt: inout PushAttempt) throws(Rejection) {
        guard let token = attempt.deviceToken else { throw Rejection(.missingDeviceToken) }
        guard Self.isWellFormed(token, format: policy.deviceTokenFormat) else { throw Rejection(.badDeviceToken) }
        guard let registration = world.registration(token) else {
            if policy.acceptUnknownDeviceTokens { return }
            throw Rejection(.badDeviceToken)
        }
        // "Verify … that the token matches the environment."
        if registration.record.environment != attempt.environment { throw Rejection(.badDeviceToken) }
        attempt.registered = registration
    }

    /// The token against the topic (O13) and its state; pushy answers 410 before the topic match.
    func checkDeviceTokenState(_ attempt: PushAttempt, goneBeforeTopic: Bool) throws(Rejection) {
        // A push type needing a suffixed topic (voip) sent to the bare bundle id: no token fits.
        if attempt.topicLacksPushTypeSuffix { throw Rejection(.deviceTokenNotForTopic) }
        // Fields are read from the registration in place: a copy of its record would retain
        // each of its strings.
        guard let registered = attempt.registered else { return }
        if goneBeforeTopic { try checkGone(registered.record.state) }
        if let topic = attempt.topic, !registered.accepts(topic) { throw Rejection(.deviceTokenNotForTopic) }
        if !goneBeforeTopic { try checkGone(registered.record.state) }
    }

    private func checkGone(_ state: DeviceTokenRecord.State) throws(Rejection) {
        switch state {
        case .active: break
        case .unregistered(let since): throw Rejection(.unregistered, timestamp: since)
        case .expired(let since): throw Rejection(.expiredToken, timestamp: since)
        }
    }

    /// The sink's last word on a push every rule accepted: its verdict now (a single process
    /// counts the token's window here, in Swift), or none yet, and the answer waits for it (a
    /// cluster's engine counts every node's pushes).
    func askSinkForVerdict(_ attempt: inout PushAttempt) throws(Rejection) {
        let token = attempt.deviceToken
        let verdict = sink.verdictNow { token.flatMap { admitByRateLimit(attempt, token: $0) } }
        guard let verdict else {
            attempt.awaitsVerdict = true
            return
        }
        if let rejection = Rejection(verdict: verdict) { throw rejection }
    }

    static func isWellFormed(_ token: DeviceTokenKey, format: APNsPolicy.DeviceTokenFormat) -> Bool {
        // 64 hex digits fit either format; only other lengths are read digit by digit.
        guard let text = token.unpackedText else { return true }
        return isWellFormed(text, format: format)
    }

    static func isWellFormed(_ token: String, format: APNsPolicy.DeviceTokenFormat) -> Bool {
        let count = token.utf8.count
        switch format {
        case .variableLength: guard count >= 64, count % 2 == 0 else { return false }
        case .exactly64: guard count == 64 else { return false }
        }
        var token = token
        return token.withUTF8 { bytes in
            for byte in bytes where !((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)) { return false }
            return true
        }
    }
}
