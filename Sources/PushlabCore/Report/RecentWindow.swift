/// Values remembered for at least one window and at most two: two generations, the older dropped
/// whole when the newer is a window old, so forgetting costs nothing per entry. Past `capacity`
/// entries a generation takes no more until it turns over.
struct RecentWindow<Value: Sendable>: Sendable {
    let windowMilliseconds: Int64
    let capacity: Int
    private var current: [Int: (time: EpochMilliseconds, value: Value)] = [:]
    private var previous: [Int: (time: EpochMilliseconds, value: Value)] = [:]
    private var currentStarted: EpochMilliseconds?

    init(windowMilliseconds: Int64, capacity: Int) {
        self.windowMilliseconds = windowMilliseconds
        self.capacity = capacity
    }

    /// The value kept for `key` no longer than a window before `now`, and when it was kept.
    mutating func recent(_ key: Int, now: EpochMilliseconds) -> (time: EpochMilliseconds, value: Value)? {
        turnOver(now)
        guard let found = current[key] ?? previous[key], now - found.time <= windowMilliseconds else { return nil }
        return found
    }

    mutating func keep(_ key: Int, _ value: Value, at time: EpochMilliseconds) {
        turnOver(time)
        guard current.count < capacity || current[key] != nil else { return }
        current[key] = (time, value)
    }

    /// Nothing kept: a lookup may be skipped.
    var isEmpty: Bool { current.isEmpty && previous.isEmpty }

    mutating func removeAll() {
        current.removeAll()
        previous.removeAll()
        currentStarted = nil
    }

    private mutating func turnOver(_ now: EpochMilliseconds) {
        guard let started = currentStarted else {
            currentStarted = now
            return
        }
        guard now - started >= windowMilliseconds else { return }
        // Both generations are older than a window once two windows have passed.
        previous = now - started >= 2 * windowMilliseconds ? [:] : current
        current = [:]
        currentStarted = now
    }
}
