/// The last `capacity` ids inserted, for a membership test (a set and a ring of the same ids).
struct RecentIDs<ID: Hashable> {
    private var members: Set<ID> = []
    private var order: [ID] = []
    private var oldest = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func contains(_ id: ID) -> Bool { members.contains(id) }

    mutating func insert(_ id: ID) {
        guard members.insert(id).inserted else { return }
        if order.count < capacity {
            order.append(id)
            return
        }
        // A ring: the slot of the oldest takes the newest.
        members.remove(order[oldest])
        order[oldest] = id
        oldest = (oldest + 1) % capacity
    }
}
