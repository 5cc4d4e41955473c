/// Why the test server could not start or do what was asked, in words for the test's author.
public struct PushlabTestingError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
