import PushlabDelivery

/// The store falls behind when its writer cannot commit what the phones observe as fast as they
/// observe it: it reports a backlog once as many observations and requests wait as it may hold
/// without dropping or shedding any (`WriteBuffer.holdMark`), and lets go when they are written.
extension PushlabStore: DeliveryBacklog {
    public func reportBacklog(to report: (@Sendable (_ backedUp: Bool) -> Void)?) {
        buffer.onBackedUp(report)
    }
}
