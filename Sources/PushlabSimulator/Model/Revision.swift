import Synchronization

/// A stamp that moves on whenever what holds it changes (its properties' observers advance it),
/// to a value no stamp has had before: equal stamps mean no change in between, with no copy
/// kept to compare against.
struct Revision: Sendable, Equatable {
    private(set) var value: UInt64

    init() { value = Self.next() }

    mutating func advance() { value = Self.next() }

    mutating func advance(if changed: Bool) {
        if changed { advance() }
    }

    /// A model's equality is its fields': two devices alike are equal, whatever their histories.
    static func == (lhs: Revision, rhs: Revision) -> Bool { true }

    /// Shared by every stamp, so that an install put in another's place never takes its value.
    /// Advanced only by real changes: a push that adds a Notification Center entry (or sets the
    /// badge it already has) does not touch it.
    private static let counter = Atomic<UInt64>(0)

    private static func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}
