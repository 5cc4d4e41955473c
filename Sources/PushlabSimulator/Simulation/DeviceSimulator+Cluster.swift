import PushlabCore

/// What a cluster node changes in its simulator: its copies of the phones other nodes simulate
/// make no requests and publish no tokens.
extension DeviceSimulator {
    /// A token a phone made or retired itself (a Live Activity's), for the other nodes' worlds.
    public enum TokenChange: Sendable, Equatable {
        case register(DeviceTokenRecord)
        /// `Unregistered` from this time on.
        case unregister(token: String, at: EpochMilliseconds)
    }

    /// Hears the tokens each phone simulated here makes or retires itself.
    public typealias TokenListener = @Sendable (_ changes: [TokenChange]) -> Void

    /// On a cluster node: whether it simulates a phone (its copies of the others' phones make no
    /// requests to the apps' backends, and their tokens are no one's; the phone's own node
    /// does). Nil: every phone is simulated here.
    public func setSimulatedHere(_ predicate: (@Sendable (String) -> Bool)?) {
        simulatedHere.withLock { $0 = predicate.map(Hook.init) }
    }

    public func setTokenListener(_ listener: TokenListener?) {
        tokenListener.withLock { $0 = listener.map(Hook.init) }
    }

    func isSimulatedHere(_ deviceID: String) -> Bool {
        simulatedHere.withLock { $0 }?.call(deviceID) ?? true
    }

    func tell(_ changes: [DeviceSession.TokenChange], of deviceID: String) {
        guard let listener = tokenListener.withLock({ $0 })?.call, isSimulatedHere(deviceID) else { return }
        listener(changes.map { change in
            switch change {
            case .register(let record): .register(record)
            case .unregister(let token, let at): .unregister(token: token, at: at)
            }
        })
    }
}

/// A closure kept behind a reference. A `Mutex` holding a closure itself hands it through a
/// generic `inout` at every access, which wraps it in one more reabstraction thunk each time:
/// after a million phones' checks, a call went through a million thunks.
final class Hook<Function: Sendable>: Sendable {
    let call: Function

    init(_ call: Function) {
        self.call = call
    }
}
