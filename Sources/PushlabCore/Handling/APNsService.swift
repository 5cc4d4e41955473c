/// The seam between transport and APNs rules. The transport asks the service for one
/// handler per connection and calls it on the connection's event loop, one request at a time;
/// per-connection state (bound team, last provider token) lives in the handler.
public protocol APNsService: Sendable {
    func makeConnectionHandler(for connection: ConnectionInfo) -> any APNsConnectionHandler
}

public protocol APNsConnectionHandler: AnyObject {
    /// MAX_CONCURRENT_STREAMS for the initial SETTINGS.
    var initialMaxConcurrentStreams: UInt32 { get }
    /// Actions to take as soon as the connection is up (e.g. GOAWAY for a wrong-environment certificate).
    func connectionDidStart() -> [ConnectionAction]
    /// The answer to one complete request.
    func handle(_ request: APNsRequest) -> APNsOutcome
    func connectionDidClose()
}

extension APNsConnectionHandler {
    public func connectionDidStart() -> [ConnectionAction] { [] }
    public func connectionDidClose() {}
}

/// A response plus what, if anything, should happen to the connection.
public struct APNsOutcome: Sendable, Equatable {
    public var response: APNsResponse
    public var actions: [ConnectionAction]

    public init(_ response: APNsResponse, actions: [ConnectionAction] = []) {
        self.response = response
        self.actions = actions
    }
}

public enum ConnectionAction: Sendable, Equatable {
    /// Announce a new MAX_CONCURRENT_STREAMS in a SETTINGS frame.
    case setMaxConcurrentStreams(UInt32)
    /// GOAWAY with `{"reason":…}` debug data, then close once in-flight streams finish.
    case goAway(APNsErrorReason)
}
