import PushlabRedis

/// The changes made to a cluster's world through any node's control API (keys, apps, phones
/// added or removed, the clock, fault rules, a reset, a scenario load), in one Redis stream:
/// every node applies each of them, in the stream's order, to its own copy of the world, and
/// says how far it got. Redis orders them; no node decides for the others.
///
/// A reset or a scenario load starts a new world (`WorldGeneration`): what came before it is
/// trimmed away (a reset keeps the scenario load it returns to), so that a node joining later
/// replays only what the world now is.
public struct WorldChanges: Sendable {
    public let keys: EngineKeys
    private let client: RedisClusterClient

    public init(client: RedisClusterClient, keys: EngineKeys) {
        self.client = client
        self.keys = keys
    }

    /// A change as the control API received it.
    public struct Change: Sendable, Equatable {
        public var id: StreamID
        public var method: String
        /// With its query.
        public var path: String
        public var body: [UInt8]
        public var kind: Kind

        public init(id: StreamID, method: String, path: String, body: [UInt8], kind: Kind) {
            self.id = id
            self.method = method
            self.path = path
            self.body = body
            self.kind = kind
        }
    }

    public enum Kind: String, Sendable {
        /// Applied to the world as it is.
        case change
        /// Back to the scenario: a new world.
        case reset
        /// Another scenario, and a new world.
        case load
        /// What one node made that every world must know (`PublishedChange`: tokens its phones
        /// made or retired, channels its channel API created or deleted); `path` names that
        /// node, which has them already.
        case published
    }

    /// Appends a change; its id, and the world it replaced when it starts a new one.
    public func append(method: String, path: String, body: [UInt8], kind: Kind) async throws(RedisError) -> (id: StreamID, replaced: String?) {
        let (answer, _) = try await Self.script.run(
            on: client, slot: HashSlot.of(keys.changes), keys: [keys.changes, keys.currentWorld],
            arguments: [RESPArgument(method), RESPArgument(path), RESPArgument(bytes: body), RESPArgument(kind.rawValue)]
        )
        guard let parts = answer.elements, let id = parts.first?.text.flatMap(StreamID.init) else {
            throw RedisError(.protocolError, "appending a world change answered \(answer)")
        }
        let replaced = parts.count > 1 ? parts[1].text : nil
        return (id, kind == .reset || kind == .load ? (replaced ?? "0") : nil)
    }

    private static let script = Script(source: """
    local id = redis.call('XADD', KEYS[1], '*', 'method', ARGV[1], 'path', ARGV[2], 'body', ARGV[3], 'kind', ARGV[4])
    local previous = redis.call('HGET', KEYS[2], 'id')
    if ARGV[4] == 'reset' then
      local loaded = redis.call('HGET', KEYS[2], 'loaded')
      if loaded then
        redis.call('XTRIM', KEYS[1], 'MINID', loaded)
        for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '(' .. loaded, '(' .. id)) do redis.call('XDEL', KEYS[1], entry[1]) end
      else
        redis.call('XTRIM', KEYS[1], 'MINID', id)
      end
      redis.call('HSET', KEYS[2], 'id', id)
    elseif ARGV[4] == 'load' then
      redis.call('XTRIM', KEYS[1], 'MINID', id)
      redis.call('HSET', KEYS[2], 'id', id, 'loaded', id)
    end
    if previous then return {id, previous} end
    return {id}
    """)

    /// Up to `count` changes after `id` (from the first with nil), in order.
    public func read(after id: StreamID?, count: Int = 100) async throws(RedisError) -> [Change] {
        let start = id.map { "(" + $0.description } ?? "-"
        let answer = try await client.send(
            RESPCommand("XRANGE", RESPArgument(keys.changes), RESPArgument(start), "+", "COUNT", RESPArgument(count)), key: keys.changes
        )
        return try Self.changes(answer.elements ?? [])
    }

    /// Up to `count` changes after `id`, as `read` gives them, waiting on `reader`'s connection
    /// for the next one when there are none yet, for at most `limit`: an idle node asks the engine
    /// once a `limit`, not once a poll. Empty when none came in time.
    public func wait(after id: StreamID?, upTo limit: Duration, count: Int = 100, on reader: RedisBlockingReader) async throws(RedisError) -> [Change] {
        let answer = try await reader.send(
            RESPCommand("XREAD", "COUNT", RESPArgument(count), "BLOCK", RESPArgument(max(1, Int64(limit / .milliseconds(1)))),
                        "STREAMS", RESPArgument(keys.changes), RESPArgument(id?.description ?? "0-0")),
            slot: HashSlot.of(keys.changes)
        )
        guard !answer.isNull else { return [] }
        guard let streams = answer.pairs else { throw RedisError(.protocolError, "XREAD answered \(answer)") }
        return try Self.changes(streams.first?.value.elements ?? [])
    }

    /// Stream entries `[[id, [field, value, …]], …]` as changes.
    private static func changes(_ entries: [RESPValue]) throws(RedisError) -> [Change] {
        var changes: [Change] = []
        for entry in entries {
            guard let parts = entry.elements, parts.count == 2, let id = parts[0].text.flatMap(StreamID.init) else { continue }
            var fields: [String: [UInt8]] = [:]
            for (name, value) in parts[1].pairs ?? [] {
                if let name = name.text, let bytes = value.bytes { fields[name] = bytes }
            }
            guard let method = fields["method"].map({ String(decoding: $0, as: UTF8.self) }),
                  let path = fields["path"].map({ String(decoding: $0, as: UTF8.self) }),
                  let kind = fields["kind"].flatMap({ Kind(rawValue: String(decoding: $0, as: UTF8.self)) }) else {
                throw RedisError(.protocolError, "world change \(id) cannot be read")
            }
            changes.append(Change(id: id, method: method, path: path, body: fields["body"] ?? [], kind: kind))
        }
        return changes
    }

    /// The newest change's id, if any.
    public func last() async throws(RedisError) -> StreamID? {
        let answer = try await client.send(RESPCommand("XREVRANGE", RESPArgument(keys.changes), "+", "-", "COUNT", "1"), key: keys.changes)
        return answer.elements?.first?.elements?.first?.text.flatMap(StreamID.init)
    }

    /// `node` has applied every change up to `id`.
    public func markApplied(_ id: StreamID, by node: String) async throws(RedisError) {
        _ = try await client.send(RESPCommand("HSET", RESPArgument(keys.appliedChanges), RESPArgument(node), RESPArgument(id.description)), key: keys.appliedChanges)
    }

    /// How far each node has applied the changes.
    public func applied() async throws(RedisError) -> [String: StreamID] {
        let answer = try await client.send(RESPCommand("HGETALL", RESPArgument(keys.appliedChanges)), key: keys.appliedChanges)
        var applied: [String: StreamID] = [:]
        for (node, id) in answer.pairs ?? [] {
            if let node = node.text, let id = id.text.flatMap(StreamID.init) { applied[node] = id }
        }
        return applied
    }

    /// Forgets a node that left.
    public func forget(_ node: String) async throws(RedisError) {
        _ = try await client.send(RESPCommand("HDEL", RESPArgument(keys.appliedChanges), RESPArgument(node)), key: keys.appliedChanges)
    }

    /// The world the cluster is in now ("0" before any reset or scenario load).
    public func currentWorld() async throws(RedisError) -> String {
        let answer = try await client.send(RESPCommand("HGET", RESPArgument(keys.currentWorld), "id"), key: keys.currentWorld)
        return answer.text ?? "0"
    }

    /// Deletes every data key of world `id` on every master; how many there were.
    @discardableResult
    public func delete(world id: String) async throws(RedisError) -> Int {
        let map = try await client.refreshMap()
        var deleted = 0
        for master in map.masters {
            guard let slot = map.firstSlot(of: master) else { continue }
            var cursor = "0"
            repeat {
                let answer = try await client.send(
                    RESPCommand("SCAN", RESPArgument(cursor), "MATCH", RESPArgument(keys.dataPattern(world: id)), "COUNT", "1000"), slot: slot
                )
                guard let parts = answer.elements, parts.count == 2, let next = parts[0].text else {
                    throw RedisError(.protocolError, "SCAN answered \(answer)")
                }
                cursor = next
                for key in parts[1].elements?.compactMap(\.text) ?? [] {
                    _ = try await client.send(RESPCommand("UNLINK", RESPArgument(key)), key: key)
                    deleted += 1
                }
            } while cursor != "0"
        }
        return deleted
    }
}
