import NIOCore

/// When a connection's next read waits for the sink to catch up (`intakeIsBackedUp`): a short
/// pause at a time, and never more than `longestWait` of them in a row, so that a stuck sink
/// slows the answers and never stops them. A paused read is invisible to the provider but for
/// the time its answers take: TCP pushes back, and nothing is refused.
struct IntakePacing {
    static let pause: TimeAmount = .milliseconds(2)
    /// Pauses in a row before a read goes ahead anyway (50 ms with `pause`).
    static let longestWait = 25

    private(set) var pausesInARow = 0

    /// Whether the read NIO asks for waits `pause` first (the caller asks again when it is over).
    mutating func shouldPause(intakeBackedUp: Bool) -> Bool {
        guard intakeBackedUp, pausesInARow < Self.longestWait else {
            pausesInARow = 0
            return false
        }
        pausesInARow += 1
        return true
    }
}
