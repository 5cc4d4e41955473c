/// Why a push got no answer: what a person needs to fix it.
public struct APNsClientError: Error, Equatable, CustomStringConvertible {
    public let description: String
    /// The server never processed the request (a stream after a GOAWAY's last one): it may be
    /// sent again on a new connection.
    public let unprocessed: Bool

    public init(_ description: String, unprocessed: Bool = false) {
        self.description = description
        self.unprocessed = unprocessed
    }
}
