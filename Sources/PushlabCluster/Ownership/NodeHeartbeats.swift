import PushlabRedis

/// The nodes of a cluster, as the engine knows them: each node beats every second or so, and a
/// node that has not beaten for `timeout` is dead. Redis keeps the list (one sorted set, scored
/// with Redis's own clock, so that the nodes' clocks need not agree); nothing of it is voted on.
public struct NodeHeartbeats: Sendable {
    public let keys: EngineKeys
    /// How long a node stays live after its last beat.
    public let timeout: Duration
    private let client: RedisClusterClient

    public init(client: RedisClusterClient, keys: EngineKeys, timeout: Duration = .seconds(3)) {
        self.client = client
        self.keys = keys
        self.timeout = timeout
    }

    /// `node` is alive now; returns every live node (`node` among them), sorted, dead ones forgotten.
    /// `address`: where its control API answers, for the other nodes to forward to.
    public func beat(_ node: String, address: String? = nil) async throws(RedisError) -> [String] {
        try await run(node, leaving: false, address: address)
    }

    /// Where each live node's control API answers (the nodes that gave one).
    public func addresses() async throws(RedisError) -> [String: String] {
        let answer = try await client.send(RESPCommand("HGETALL", RESPArgument(keys.nodeAddresses)), slot: HashSlot.of(keys.liveNodes))
        var addresses: [String: String] = [:]
        for (node, address) in answer.pairs ?? [] {
            if let node = node.text, let address = address.text { addresses[node] = address }
        }
        return addresses
    }

    /// `node` stops: the others take its partitions at their next beat, without waiting for
    /// its timeout. Returns the nodes left.
    @discardableResult
    public func leave(_ node: String) async throws(RedisError) -> [String] {
        try await run(node, leaving: true)
    }

    /// The live nodes, read without beating.
    public func live() async throws(RedisError) -> [String] {
        try await run("", leaving: true)
    }

    private func run(_ node: String, leaving: Bool, address: String? = nil) async throws(RedisError) -> [String] {
        let (answer, _) = try await Script.heartbeat.run(
            on: client, slot: HashSlot.of(keys.liveNodes), keys: [keys.liveNodes, keys.nodeAddresses],
            arguments: [RESPArgument(node), RESPArgument(Int64(timeout / .milliseconds(1))), RESPArgument(leaving ? "leave" : "beat"), RESPArgument(address ?? "")]
        )
        guard let names = answer.elements?.compactMap(\.text) else {
            throw RedisError(.protocolError, "the heartbeat script answered \(answer)")
        }
        return names.sorted()
    }
}

extension Script {
    /// KEYS: the live set, the addresses. ARGV: node (empty: none), timeout (ms), "beat" or
    /// "leave", address (empty: none). Redis 7 replicates a script's effects, so reading `TIME`
    /// before writing is allowed.
    static let heartbeat = Script(source: """
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        if ARGV[1] ~= '' then
          if ARGV[3] == 'leave' then
            redis.call('ZREM', KEYS[1], ARGV[1])
            redis.call('HDEL', KEYS[2], ARGV[1])
          else
            redis.call('ZADD', KEYS[1], now, ARGV[1])
            if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], ARGV[1], ARGV[4]) end
          end
        end
        local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
        if #dead > 0 then
          redis.call('ZREM', KEYS[1], unpack(dead))
          redis.call('HDEL', KEYS[2], unpack(dead))
        end
        return redis.call('ZRANGE', KEYS[1], 0, -1)
        """)
}
