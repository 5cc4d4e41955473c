import PushlabCore

/// A broadcast handed to the pipeline: to every subscribed phone, or to those `devices` accepts
/// (a cluster node's partition of them), and taken at `position` of a log once it ran.
public struct LoggedBroadcast: Sendable {
    public var broadcast: AcceptedBroadcast
    public var devices: (@Sendable (String) -> Bool)?
    public var position: LoggedPushPosition?

    public init(_ broadcast: AcceptedBroadcast, devices: (@Sendable (String) -> Bool)? = nil, position: LoggedPushPosition? = nil) {
        self.broadcast = broadcast
        self.devices = devices
        self.position = position
    }
}
