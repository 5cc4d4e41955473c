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
    public func beat(_ node: String) async throws(RedisError) -> [String] {
        try await run(node, leaving: false)
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

    private func run(_ node: String, leaving: Bool) async throws(RedisError) -> [String] {
        let (answer, _) = try await Script.heartbeat.run(
            on: client, slot: HashSlot.of(keys.liveNodes), keys: [keys.liveNodes],
            arguments: [RESPArgument(node), RESPArgument(Int64(timeout / .milliseconds(1))), RESPArgument(leaving ? "leave" : "beat")]
        )
        guard let names = answer.elements?.compactMap(\.text) else {
            throw RedisError(.protocolError, "the heartbeat script answered \(answer)")
        }
        return names.sorted()
    }
}

extension Script {
    /// KEYS: the live set. ARGV: node (empty: none), timeout (ms), "beat" or "leave".
    /// Redis 7 replicates a script's effects, so reading `TIME` before writing is allowed.
    static let heartbeat = Script(source: """
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        if ARGV[1] ~= '' then
          if ARGV[3] == 'leave' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], now, ARGV[1]) end
        end
        redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
        return redis.call('ZRANGE', KEYS[1], 0, -1)
        """)
}
