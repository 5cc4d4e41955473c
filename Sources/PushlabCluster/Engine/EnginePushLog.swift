import PushlabRedis

/// The consuming side of the partitions' logs (`EngineKeys.log`): a node reads the pushes of the
/// partitions it simulates as a consumer of the partitions' group, takes them once their phones
/// have, and claims what a dead node had read and not taken (`XAUTOCLAIM`). Redis keeps, per
/// group, which consumer holds which entry: nothing of it is Pushlab's own bookkeeping.
public struct EnginePushLog: Sendable {
    public let keys: EngineKeys
    let client: RedisClusterClient

    public init(client: RedisClusterClient, keys: EngineKeys) {
        self.client = client
        self.keys = keys
    }

    /// One entry of a partition's log: the pushes one intake call accepted for the partition,
    /// in order, or a broadcast.
    public struct Entry: Sendable, Equatable {
        public var id: StreamID
        /// Each as `EngineIntake.accept` was given it.
        public var pushes: [[UInt8]]
        /// A broadcast instead (`EngineIntake.appendBroadcast`): no push.
        public var broadcast: [UInt8]? = nil
    }

    /// Makes the group on each partition's log (and the log itself); a group that exists already
    /// is left as it is.
    public func prepare(partitions: some Sequence<Int>) async throws(RedisError) {
        for partition in partitions {
            do {
                _ = try await client.send(
                    RESPCommand("XGROUP", "CREATE", RESPArgument(keys.log(partition)), RESPArgument(keys.group), "0", "MKSTREAM"),
                    slot: keys.slot(partition)
                )
            } catch where error.code == "BUSYGROUP" {
                continue
            }
        }
    }

    /// Up to `count` pushes of `partition` no consumer has read yet, oldest first; they are now
    /// `consumer`'s until it takes them, or until another claims them.
    public func readNew(partition: Int, consumer: String, count: Int) async throws(RedisError) -> [Entry] {
        try await read(partition: partition, consumer: consumer, count: count, from: ">")
    }

    /// What `consumer` read before and has not taken (after its own restart), oldest first.
    public func readOwnPending(partition: Int, consumer: String, count: Int) async throws(RedisError) -> [Entry] {
        try await read(partition: partition, consumer: consumer, count: count, from: "0")
    }

    private func read(partition: Int, consumer: String, count: Int, from start: String) async throws(RedisError) -> [Entry] {
        let answer = try await client.send(
            RESPCommand("XREADGROUP", "GROUP", RESPArgument(keys.group), RESPArgument(consumer), "COUNT", RESPArgument(count),
                        "STREAMS", RESPArgument(keys.log(partition)), RESPArgument(start)),
            slot: keys.slot(partition)
        )
        guard !answer.isNull else { return [] }
        guard let streams = answer.pairs, let entries = streams.first?.value.elements else {
            throw RedisError(.protocolError, "XREADGROUP answered \(answer)")
        }
        return try Self.entries(entries)
    }

    /// Takes `ids` of `partition` for `node`: acknowledged to the group and deleted from the
    /// log, with `writes` (to keys of the same partition: what the phones observed, the phones
    /// as they are now), in one script, so that the engine never has the one without the other.
    /// Only while `node` holds the partition's lease (`PartitionLeases`), or the lease is
    /// nobody's (a Redis master's failover lost it): then it becomes `node`'s for `lease`. False,
    /// and nothing written, when another node holds it (it has the phones now, and takes these
    /// pushes itself). A `node` of nil takes without a lease.
    @discardableResult
    public func take(
        partition: Int, ids: [StreamID], by node: String?, lease: Duration = .seconds(3), writes: [EngineWrite] = []
    ) async throws(RedisError) -> Bool {
        guard !ids.isEmpty || !writes.isEmpty else { return true }
        var arguments = [RESPArgument(node ?? ""), RESPArgument(keys.group), RESPArgument(ids.count)]
        arguments += ids.map { RESPArgument($0.description) }
        for write in writes {
            switch write {
            case .append(_, let fields, let keep):
                arguments += [RESPArgument("append"), RESPArgument(keep ?? 0), RESPArgument(fields.count)]
                for (name, value) in fields { arguments += [RESPArgument(name), RESPArgument(bytes: value)] }
            case .setFields(_, let fields):
                arguments += [RESPArgument("set"), RESPArgument(fields.count)]
                for (field, value) in fields { arguments += [RESPArgument(field), RESPArgument(bytes: value)] }
            case .removeFields(_, let fields):
                arguments += [RESPArgument("del"), RESPArgument(fields.count)] + fields.map { RESPArgument($0) }
            case .removeFieldsStarting(_, let prefixes):
                arguments += [RESPArgument("delprefix"), RESPArgument(prefixes.count)] + prefixes.map { RESPArgument(Self.globEscaped($0) + "*") }
            }
        }
        arguments.append(RESPArgument(Int64(lease / .milliseconds(1))))
        let (answer, _) = try await Script.take.run(
            on: client, slot: keys.slot(partition),
            keys: [keys.owner(partition), keys.log(partition)] + writes.map(\.key), arguments: arguments
        )
        return answer.integer == 1
    }

    /// Pushes of `partition` that another consumer read and has not taken for `minIdle` (a node
    /// that died): they become `consumer`'s, oldest first. Entries deleted meanwhile are left out.
    public func claimAbandoned(partition: Int, consumer: String, minIdle: Duration, count: Int) async throws(RedisError) -> [Entry] {
        var claimed: [Entry] = []
        var cursor = "0-0"
        repeat {
            let answer = try await client.send(
                RESPCommand("XAUTOCLAIM", RESPArgument(keys.log(partition)), RESPArgument(keys.group), RESPArgument(consumer),
                            RESPArgument(Int64(minIdle / .milliseconds(1))), RESPArgument(cursor), "COUNT", RESPArgument(count - claimed.count)),
                slot: keys.slot(partition)
            )
            guard let parts = answer.elements, parts.count >= 2, let next = parts[0].text, let entries = parts[1].elements else {
                throw RedisError(.protocolError, "XAUTOCLAIM answered \(answer)")
            }
            claimed += try Self.entries(entries)
            cursor = next
        } while cursor != "0-0" && claimed.count < count
        return claimed
    }

    /// Pushes in `partition`'s log: accepted and not yet taken.
    public func untakenCount(partition: Int) async throws(RedisError) -> Int {
        let answer = try await client.send(RESPCommand("XLEN", RESPArgument(keys.log(partition))), slot: keys.slot(partition))
        return Int(answer.integer ?? 0)
    }

    /// Stream entries `[[id, [field, value, …]], …]`; an entry whose fields are gone (deleted
    /// while pending) is left out, one it cannot read has no pushes.
    private static func entries(_ values: [RESPValue]) throws(RedisError) -> [Entry] {
        var entries: [Entry] = []
        for value in values {
            guard let parts = value.elements, parts.count == 2, let id = parts[0].text.flatMap(StreamID.init) else {
                throw RedisError(.protocolError, "a stream entry it cannot read: \(value)")
            }
            guard let fields = parts[1].pairs else { continue }
            if let broadcast = fields.first(where: { $0.key.text == "broadcast" })?.value.bytes {
                entries.append(Entry(id: id, pushes: [], broadcast: broadcast))
                continue
            }
            // Unreadable (another version's entry): no pushes, for the reader to take and say so.
            let framed = fields.first(where: { $0.key.text == "pushes" })?.value.bytes
            entries.append(Entry(id: id, pushes: framed.flatMap(EngineIntake.unframed) ?? []))
        }
        return entries
    }
}

/// What a taking writes with it, to a key of the taken partition, in the order given.
public enum EngineWrite: Sendable {
    /// An entry added to a stream (`XADD … *`), its fields in order; with `keep`, the stream is
    /// trimmed to about that many entries (`MAXLEN ~`).
    case append(stream: String, fields: [(String, [UInt8])], keep: Int? = nil)
    /// Fields of a hash set, in one `HSET`.
    case setFields(hash: String, fields: [(String, [UInt8])])
    /// Fields of a hash removed, in one `HDEL`.
    case removeFields(hash: String, fields: [String])
    /// Every field of a hash that starts with one of `prefixes` removed (found with `HSCAN`: for
    /// what is rare, such as a phone removed with its Notification Center entries).
    case removeFieldsStarting(hash: String, prefixes: [String])

    var key: String {
        switch self {
        case .append(let stream, _, _): stream
        case .setFields(let hash, _), .removeFields(let hash, _), .removeFieldsStarting(let hash, _): hash
        }
    }
}

extension EnginePushLog {
    /// `text` matched literally by a Redis glob pattern (`HSCAN … MATCH`).
    static func globEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "*?[]\\^".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

extension Script {
    /// KEYS: the lease, the log, then one key per write. ARGV: node ('' for none), group, the
    /// number of ids, the ids, then per write "append", the entries to keep (0: all), its number
    /// of fields and its name/value pairs; "set", the number of fields and the field/value
    /// pairs; "del", the number of fields and the fields; or "delprefix", the number of patterns
    /// and the patterns; last, the lease's duration (ms). 0 when another node holds the lease.
    static let take = Script(source: """
        if ARGV[1] ~= '' then
          local holder = redis.call('GET', KEYS[1])
          if holder and holder ~= ARGV[1] then return 0 end
          if not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[#ARGV]) end
        end
        local count = tonumber(ARGV[3])
        if count > 0 then
          redis.call('XACK', KEYS[2], ARGV[2], unpack(ARGV, 4, 3 + count))
          redis.call('XDEL', KEYS[2], unpack(ARGV, 4, 3 + count))
        end
        local at = 4 + count
        for key = 3, #KEYS do
          if ARGV[at] == 'append' then
            local keep = tonumber(ARGV[at + 1])
            local fields = tonumber(ARGV[at + 2])
            if keep > 0 then
              redis.call('XADD', KEYS[key], 'MAXLEN', '~', keep, '*', unpack(ARGV, at + 3, at + 2 + 2 * fields))
            else
              redis.call('XADD', KEYS[key], '*', unpack(ARGV, at + 3, at + 2 + 2 * fields))
            end
            at = at + 3 + 2 * fields
          elseif ARGV[at] == 'set' then
            local fields = tonumber(ARGV[at + 1])
            redis.call('HSET', KEYS[key], unpack(ARGV, at + 2, at + 1 + 2 * fields))
            at = at + 2 + 2 * fields
          elseif ARGV[at] == 'del' then
            local fields = tonumber(ARGV[at + 1])
            redis.call('HDEL', KEYS[key], unpack(ARGV, at + 2, at + 1 + fields))
            at = at + 2 + fields
          else
            local patterns = tonumber(ARGV[at + 1])
            for pattern = at + 2, at + 1 + patterns do
              local cursor = '0'
              repeat
                local found = redis.call('HSCAN', KEYS[key], cursor, 'MATCH', ARGV[pattern], 'COUNT', 1000)
                cursor = found[1]
                for field = 1, #found[2], 2 do redis.call('HDEL', KEYS[key], found[2][field]) end
              until cursor == '0'
            end
            at = at + 2 + patterns
          end
        end
        return 1
        """)
}
