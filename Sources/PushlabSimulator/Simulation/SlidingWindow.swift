import PushlabCore

/// A limit on deliveries in any window of `length` (an hour of Live Activity updates, a day of
/// widget reloads): the times of the last window's deliveries are kept, older ones dropped.
struct SlidingWindow {
    let limit: Int
    let length: EpochMilliseconds

    static let hour: EpochMilliseconds = 3_600_000
    static let day: EpochMilliseconds = 86_400_000

    /// Counts a delivery at `now` if the window has room (0: no limit); false when it is full.
    /// `deliveries` is pruned either way.
    func admit(_ deliveries: inout [EpochMilliseconds], now: EpochMilliseconds) -> Bool {
        deliveries.removeAll { $0 <= now - length }
        guard limit == 0 || deliveries.count < limit else { return false }
        deliveries.append(now)
        return true
    }
}
