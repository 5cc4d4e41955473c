/// A Redis stream entry's id, `<milliseconds>-<sequence>`: the engine's position of a push in its
/// partition's log. Ids only grow within a stream.
public struct StreamID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var milliseconds: UInt64
    public var sequence: UInt64

    public init(milliseconds: UInt64, sequence: UInt64) {
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-")
        guard parts.count == 2, let milliseconds = UInt64(parts[0]), let sequence = UInt64(parts[1]) else { return nil }
        self.init(milliseconds: milliseconds, sequence: sequence)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence) }

    public var description: String { "\(milliseconds)-\(sequence)" }
}
