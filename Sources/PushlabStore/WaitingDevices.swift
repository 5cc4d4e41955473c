import PushlabSimulator

/// Device states waiting to be saved: the newest of each device, taken in the order the devices
/// began to wait. Taken in the dictionary's own order, they emptied its table from the front
/// while new states hashed anywhere, so the rest of the table filled and every insertion probed
/// further: 100,000 phones' states cost 0.5 s, under the lock the event loops record through.
struct WaitingDevices: Sendable {
    private(set) var changes: [String: DeviceChange] = [:]
    /// Ids in the order they began to wait, from `start`; an id taken since is skipped.
    private var order: [String] = []
    private var start = 0

    init() {}

    init(_ changes: [String: DeviceChange]) {
        self.changes = changes
        order = Array(changes.keys)
    }

    var count: Int { changes.count }
    var isEmpty: Bool { changes.isEmpty }

    /// Replaces what waits for `id` (a newer state); a device new to the wait goes last.
    mutating func set(_ change: DeviceChange, for id: String) {
        if changes.updateValue(change, forKey: id) == nil { order.append(id) }
    }

    /// Takes up to `limit` (nil: all), the longest waiting first; without `includingRemovals`,
    /// removed devices stay, first in line.
    mutating func take(limit: Int?, includingRemovals: Bool) -> [String: DeviceChange] {
        if includingRemovals, limit.map({ $0 >= changes.count }) ?? true {
            defer { self = WaitingDevices() }
            return changes
        }
        let limit = limit ?? changes.count
        var taken: [String: DeviceChange] = [:]
        taken.reserveCapacity(min(limit, changes.count))
        var removals: [String] = []
        while taken.count < limit, start < order.count {
            let id = order[start]
            start += 1
            guard let change = changes[id] else { continue }
            if case .removed = change, !includingRemovals {
                removals.append(id)
                continue
            }
            changes[id] = nil
            taken[id] = change
        }
        // The removals left go back where they were read from, in their order.
        start -= removals.count
        order.replaceSubrange(start..<start + removals.count, with: removals)
        if start > 4096, start * 2 > order.count {
            order.removeFirst(start)
            start = 0
        }
        return taken
    }

    /// Puts states of a batch that failed back, behind none: they waited longer than any here,
    /// but a state here for the same device is newer and stays.
    mutating func putBack(_ older: WaitingDevices) {
        var earlier: [String] = []
        for id in older.order[older.start...] {
            guard let change = older.changes[id], changes[id] == nil else { continue }
            changes[id] = change
            earlier.append(id)
        }
        order = earlier + order[start...]
        start = 0
    }
}
