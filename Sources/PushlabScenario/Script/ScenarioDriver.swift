import PushlabCore

/// What a script runs against: a Pushlab server, reached through its APNs listeners and its
/// control API. `pushlab run` drives an in-process server or a running one through the same
/// calls; tests can drive a fake.
public protocol ScenarioDriver: Sendable {
    /// Sends a push on a connection, opening it on first use (with the connection's client
    /// certificate, if it has one). Throws when no answer comes (the connection failed or
    /// closed); the next push on that connection opens a new one.
    func send(_ push: APNsNotification, on connection: ScenarioConnection) async throws -> APNsAnswer

    /// Sends a broadcast on a connection, as `send` does a push.
    func broadcast(_ broadcast: APNsBroadcast, on connection: ScenarioConnection) async throws -> APNsAnswer

    /// A control API request; throws `ScenarioDriverError` with the API's message on an error
    /// status.
    func control(_ method: ControlCall.Method, _ path: String, body: JSONValue?) async throws -> JSONValue

    /// Closes every connection.
    func close() async
}

/// One HTTP/2 connection of a script: its name, the environment's listener, and the client
/// certificate it was opened with.
public struct ScenarioConnection: Hashable, Sendable {
    public var name: String
    public var environment: APNsEnvironment
    public var certificate: String?
    public var certificateKey: String?
}

/// A failure of the server or the control API, said as it would be to a person.
public struct ScenarioDriverError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
