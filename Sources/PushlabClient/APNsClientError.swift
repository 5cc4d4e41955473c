/// Why a push got no answer: what a person needs to fix it.
public struct APNsClientError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
