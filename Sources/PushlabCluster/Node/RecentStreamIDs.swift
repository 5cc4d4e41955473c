/// The last `capacity` stream ids inserted, for membership: the oldest go first.
struct RecentStreamIDs {
    private var members: Set<StreamID> = []
    private var order: [StreamID] = []
    private var oldest = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func contains(_ id: StreamID) -> Bool { members.contains(id) }

    mutating func insert(_ id: StreamID) {
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
