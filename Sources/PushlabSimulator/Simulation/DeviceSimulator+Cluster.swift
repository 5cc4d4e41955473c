import PushlabCore

/// What a cluster node changes in its simulator: its copies of the phones other nodes simulate
/// make no requests and publish no tokens, and each phone is written to the engine whole.
extension DeviceSimulator {
    /// A token a phone made or retired itself (a Live Activity's), for the other nodes' worlds.
    public enum TokenChange: Sendable, Equatable {
        case register(DeviceTokenRecord)
        /// `Unregistered` from this time on.
        case unregister(token: String, at: EpochMilliseconds)
    }

    /// Hears the tokens each phone simulated here makes or retires itself.
    public typealias TokenListener = @Sendable (_ changes: [TokenChange]) -> Void

    /// Makes a device whose Notification Center alone changed count as changed (`takeChanges`):
    /// for a cluster's engine, which keeps each phone whole. A store keeps Notification
    /// Centers from the observations, and leaves this off.
    public func countNotificationCenterChanges() {
        notificationCentersChange.store(true, ordering: .relaxed)
    }

    /// On a cluster node: whether it simulates a phone (its copies of the others' phones make no
    /// requests to the apps' backends, and their tokens are no one's; the phone's own node
    /// does). Nil: every phone is simulated here.
    public func setSimulatedHere(_ predicate: (@Sendable (String) -> Bool)?) {
        simulatedHere.withLock { $0 = predicate }
    }

    public func setTokenListener(_ listener: TokenListener?) {
        tokenListener.withLock { $0 = listener }
    }

    func isSimulatedHere(_ deviceID: String) -> Bool {
        simulatedHere.withLock { $0 }?(deviceID) ?? true
    }

    func tell(_ changes: [DeviceSession.TokenChange], of deviceID: String) {
        guard let listener = tokenListener.withLock({ $0 }), isSimulatedHere(deviceID) else { return }
        listener(changes.map { change in
            switch change {
            case .register(let record): .register(record)
            case .unregister(let token, let at): .unregister(token: token, at: at)
            }
        })
    }
}
