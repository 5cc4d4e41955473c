/// The requests of the last minute, as the retry rule asks after them: a table of fixed size
/// indexed by the request's fingerprint, each slot keeping the latest request that fell in it.
/// Bounded memory and one memory access a request, whatever the rate; a request pushed out of its
/// slot by another before it was sent again is a retry missed (at a million slots, rare below
/// tens of thousands of pushes a second over the minute). Made on first use.
struct RecentRequests: Sendable {
    struct Slot: Sendable {
        var fingerprint: UInt64 = 0
        var time: EpochMilliseconds = .min
        var status: Int32 = 0
        var reason: APNsErrorReason?
    }

    let windowMilliseconds: Int64
    private let slotCount: Int
    private var slots: [Slot] = []

    /// `slots` is rounded up to a power of two.
    init(windowMilliseconds: Int64, slots: Int) {
        self.windowMilliseconds = windowMilliseconds
        var count = 1
        while count < slots { count <<= 1 }
        slotCount = count
    }

    /// The request kept under `fingerprint` within the window before `time`, then `time`'s in its place.
    mutating func exchange(_ fingerprint: UInt64, time: EpochMilliseconds, status: Int, reason: APNsErrorReason?) -> Slot? {
        if slots.isEmpty { slots = Array(repeating: Slot(), count: slotCount) }
        let index = Int(truncatingIfNeeded: fingerprint) & (slotCount - 1)
        let old = slots[index]
        // Two connections' reads may be told out of order: only a later push retries an earlier one.
        if old.fingerprint == fingerprint, old.time > time { return nil }
        slots[index] = Slot(fingerprint: fingerprint, time: time, status: Int32(status), reason: reason)
        guard old.fingerprint == fingerprint, time - old.time <= windowMilliseconds else { return nil }
        return old
    }
}
