/// Which master serves which hash slot, and its replicas: read from `CLUSTER SLOTS`. Pure; the
/// cluster client asks for a new one when a node answers MOVED or a connection fails.
public struct SlotMap: Sendable, Equatable {
    public struct Range: Sendable, Equatable {
        public var slots: ClosedRange<Int>
        public var master: RedisEndpoint
        public var replicas: [RedisEndpoint]
    }

    public private(set) var ranges: [Range]
    /// The master of each slot, by index into `ranges` (-1: no master).
    private var owner: [Int16]

    public init(ranges: [Range]) {
        self.ranges = ranges.sorted { $0.slots.lowerBound < $1.slots.lowerBound }
        owner = [Int16](repeating: -1, count: HashSlot.count)
        for (index, range) in self.ranges.enumerated() {
            for slot in range.slots where slot < HashSlot.count { owner[slot] = Int16(index) }
        }
    }

    /// A `CLUSTER SLOTS` answer: `[[start, end, [host, port, id, …], replicas…], …]`. An empty
    /// host means the node that answered (`answeredBy`).
    public init(clusterSlots reply: RESPValue, answeredBy: RedisEndpoint) throws(RedisError) {
        guard let entries = reply.elements else { throw RedisError(.protocolError, "CLUSTER SLOTS answered \(reply)") }
        var ranges: [Range] = []
        for entry in entries {
            guard let fields = entry.elements, fields.count >= 3, let start = fields[0].integer, let end = fields[1].integer,
                  start >= 0, end >= start, end < HashSlot.count else {
                throw RedisError(.protocolError, "CLUSTER SLOTS has an entry it cannot read: \(entry)")
            }
            let nodes = try fields[2...].map { node throws(RedisError) -> RedisEndpoint in
                guard let parts = node.elements, parts.count >= 2, let port = parts[1].integer else {
                    throw RedisError(.protocolError, "CLUSTER SLOTS names a node it cannot read: \(node)")
                }
                let host = parts[0].text ?? ""
                return RedisEndpoint(host: host.isEmpty || host == "?" ? answeredBy.host : host, port: Int(port))
            }
            ranges.append(Range(slots: Int(start)...Int(end), master: nodes[0], replicas: Array(nodes.dropFirst())))
        }
        self.init(ranges: ranges)
    }

    public func master(ofSlot slot: Int) -> RedisEndpoint? {
        guard slot >= 0, slot < owner.count, owner[slot] >= 0 else { return nil }
        return ranges[Int(owner[slot])].master
    }

    public func replicas(ofSlot slot: Int) -> [RedisEndpoint] {
        guard slot >= 0, slot < owner.count, owner[slot] >= 0 else { return [] }
        return ranges[Int(owner[slot])].replicas
    }

    /// Every master, once, in slot order.
    public var masters: [RedisEndpoint] {
        var seen: Set<RedisEndpoint> = []
        return ranges.map(\.master).filter { seen.insert($0).inserted }
    }

    /// Whether every slot has a master.
    public var coversEverySlot: Bool { !owner.contains(-1) }

    /// The slot a master serves first: a key tagged with it goes to that master.
    public func firstSlot(of master: RedisEndpoint) -> Int? {
        ranges.first { $0.master == master }?.slots.lowerBound
    }
}
