import Synchronization

/// The requests of the last minute, as the retry rule asks after them: a table of fixed size
/// indexed by the request's fingerprint, each slot one atomic word holding the latest request
/// that fell in it. Every event loop reads and replaces a slot with one compare-and-exchange and
/// no lock (a lock shared by the loops, taken for every request, was most of the rule's cost).
/// Bounded memory and one memory access a request, whatever the rate; a request pushed out of its
/// slot by another before it was sent again is a retry missed (rare below tens of thousands of
/// pushes a second over the minute).
///
/// A slot packs, from the top: 24 bits of the fingerprint above the slot's index (two requests
/// that share both are taken for one, about one in 16 million), the time in milliseconds modulo
/// 2^30 (12 days: a window is compared within that), and the answer's status and reason as
/// indexes of `RecentRequests.statuses` and `APNsErrorReason.allCases`.
final class RecentRequests: @unchecked Sendable {
    struct Earlier: Equatable {
        var time: EpochMilliseconds
        var status: Int
        var reason: APNsErrorReason?
    }

    /// The statuses APNs answers with, as a slot keeps them (index 0 is an empty slot; any other
    /// status is kept as 0 too, so a retry after it is counted without its answer).
    static let statuses = [0, 200, 400, 403, 404, 405, 410, 413, 429, 500, 503]
    private static let reasons = APNsErrorReason.allCases
    private static let timeBits: UInt64 = 30
    private static let timeMask: UInt64 = (1 << timeBits) - 1

    let windowMilliseconds: Int64
    private let slotCount: Int
    private let indexBits: UInt64
    // Owned here: allocated zeroed in init, freed in deinit; each slot is only ever an atomic.
    private let slots: UnsafeMutablePointer<Atomic<UInt64>>

    /// `slots` is rounded up to a power of two.
    init(windowMilliseconds: Int64, slots: Int) {
        self.windowMilliseconds = windowMilliseconds
        var count = 1
        var bits: UInt64 = 0
        while count < slots {
            count <<= 1
            bits += 1
        }
        slotCount = count
        indexBits = bits
        self.slots = .allocate(capacity: count)
        for index in 0..<count { (self.slots + index).initialize(to: Atomic(0)) }
    }

    deinit {
        slots.deinitialize(count: slotCount)
        slots.deallocate()
    }

    /// The request kept under `fingerprint` within the window before `time`, then `time`'s in its place.
    func exchange(_ fingerprint: UInt64, time: EpochMilliseconds, status: Int, reason: APNsErrorReason?) -> Earlier? {
        let index = Int(truncatingIfNeeded: fingerprint) & (slotCount - 1)
        let tag = (fingerprint >> indexBits) & 0xFF_FFFF
        let now = UInt64(truncatingIfNeeded: time) & Self.timeMask
        let statusIndex = UInt64(Self.statuses.firstIndex(of: status) ?? 0)
        let reasonIndex = reason.map { UInt64(Self.reasons.firstIndex(of: $0)! + 1) } ?? 0
        // A word of all zeros reads as an empty slot: one request in 2^54 is not remembered.
        let word = tag << 40 | now << 10 | statusIndex << 6 | reasonIndex
        var old = slots[index].load(ordering: .relaxed)
        while true {
            let sameRequest = old != 0 && old >> 40 == tag
            let age = (now &- (old >> 10 & Self.timeMask)) & Self.timeMask
            // Two connections' reads may be told out of order: only a later push retries an earlier one.
            if sameRequest && age >= 1 << (Self.timeBits - 1) { return nil }
            let (exchanged, found) = slots[index].compareExchange(expected: old, desired: word, ordering: .relaxed)
            if !exchanged {
                old = found
                continue
            }
            guard sameRequest, Int64(age) <= windowMilliseconds else { return nil }
            let oldReason = Int(old & 0x3F)
            return Earlier(
                time: time - Int64(age), status: Self.statuses[Int(old >> 6 & 0xF)],
                reason: oldReason == 0 ? nil : Self.reasons[oldReason - 1]
            )
        }
    }

    func removeAll() {
        for index in 0..<slotCount { slots[index].store(0, ordering: .relaxed) }
    }
}
