/// What a connection's held answers wait for (`APNsOutcome.isHeld`): the answers held since the
/// last `APNsConnectionHandler.requestVerdicts`, which go out together once their verdicts are in.
public struct AnswerTicket: Sendable, Hashable {
    public let number: UInt64

    public init(_ number: UInt64) {
        self.number = number
    }
}
