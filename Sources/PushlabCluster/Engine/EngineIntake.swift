import PushlabCore
import PushlabRedis

/// The engine's half of accepting a push, in one round trip to the master of the device's
/// partition: one script checks the token's state (410 with its timestamp), counts it in the
/// token's rate-limit window (429), and appends the push to the partition's log, all or nothing.
/// The 200 may go out once it returns: the push is in the engine.
public struct EngineIntake: Sendable {
    public let keys: EngineKeys
    public let client: RedisClusterClient
    /// `pushlab serve --durable`: a push is accepted once its entry is also on this many
    /// replicas (`WAIT`), so that a master's failover loses none.
    public let replicas: Int
    /// How long `WAIT` may take before the push is refused (500 `InternalServerError` to the
    /// provider, which retries).
    public let replicaTimeout: Duration

    public init(client: RedisClusterClient, keys: EngineKeys, replicas: Int = 0, replicaTimeout: Duration = .seconds(1)) {
        self.client = client
        self.keys = keys
        self.replicas = replicas
        self.replicaTimeout = replicaTimeout
    }

    /// What the engine made of a push.
    public enum Verdict: Sendable, Equatable {
        /// In the partition's log, at this stream id; nil for a push no device takes (a token
        /// APNs accepts by policy but no simulated phone holds), which is not logged.
        case accepted(StreamID?)
        /// The token was unregistered at this time (410 `Unregistered` with its timestamp).
        case unregistered(since: EpochMilliseconds)
        /// The token expired at this time (410 `ExpiredToken`).
        case expired(since: EpochMilliseconds)
        /// Over the token's limit in its window (429 `TooManyRequests`).
        case tooManyRequests
    }

    /// `push`: the push as its log entry holds it (opaque to the engine). `deviceID`: the phone
    /// that takes it; nil for none (then the token's own partition counts it, and nothing logs
    /// it). `now`: the cluster's clock. `limit`: the per-token rate limit, nil for none.
    public func accept(
        _ push: [UInt8], token: String, deviceID: String?, now: EpochMilliseconds, limit: APNsPolicy.RateLimit?
    ) async throws(RedisError) -> Verdict {
        let partition = keys.partitions.partition(of: deviceID ?? token)
        let window = Int64((limit?.perSeconds ?? 0) * 1000)
        let wait = replicas > 0 ? [RESPCommand("WAIT", RESPArgument(replicas), RESPArgument(Int64(replicaTimeout / .milliseconds(1))))] : []
        let (answer, waited) = try await Script.accept.run(
            on: client, slot: keys.slot(partition),
            keys: [keys.tokenState(token, partition: partition), keys.rateWindow(token, partition: partition), keys.log(partition)],
            arguments: [RESPArgument(now), RESPArgument(window), RESPArgument(limit?.requests ?? 0), RESPArgument(bytes: push), RESPArgument(deviceID ?? "")],
            then: wait
        )
        if let reached = waited.first?.integer, reached < replicas {
            throw RedisError(.cluster, "the push reached \(reached) of \(replicas) replicas in \(replicaTimeout)")
        }
        guard let fields = answer.elements, let verdict = fields.first?.text else {
            throw RedisError(.protocolError, "the intake script answered \(answer)")
        }
        switch verdict {
        case "accepted":
            if fields.count == 1 { return .accepted(nil) }
            guard fields.count == 2, let id = fields[1].text.flatMap(StreamID.init) else { break }
            return .accepted(id)
        case "unregistered":
            guard fields.count == 2, let since = fields[1].integer else { break }
            return .unregistered(since: since)
        case "expired":
            guard fields.count == 2, let since = fields[1].integer else { break }
            return .expired(since: since)
        case "limited":
            return .tooManyRequests
        default:
            break
        }
        throw RedisError(.protocolError, "the intake script answered \(answer)")
    }

    /// A broadcast the node's rules accepted, into every partition's log: the node of each
    /// phone delivers it to the partition's subscribed Live Activities, in order with the
    /// partition's pushes, once (`PartitionDelivery`).
    public func appendBroadcast(_ broadcast: [UInt8]) async throws(RedisError) {
        let keys = keys, client = client, replicas = replicas, wait = replicaTimeout
        let failures = await withTaskGroup(of: RedisError?.self) { group in
            for partition in 0..<keys.partitions.count {
                group.addTask {
                    var commands = [RESPCommand("XADD", RESPArgument(keys.log(partition)), "*", "broadcast", RESPArgument(bytes: broadcast))]
                    if replicas > 0 { commands.append(RESPCommand("WAIT", RESPArgument(replicas), RESPArgument(Int64(wait / .milliseconds(1))))) }
                    do throws(RedisError) {
                        let answers = try await client.pipeline(commands, slot: keys.slot(partition))
                        if let failure = answers.compactMap(\.errorMessage).first { return RedisError(.server, failure) }
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            var failures: [RedisError] = []
            for await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        if let failure = failures.first { throw failure }
    }

    /// Marks `token` unregistered at `since`: from now on every node answers 410 with that time.
    public func unregister(token: String, deviceID: String, since: EpochMilliseconds) async throws(RedisError) {
        try await setState(token: token, deviceID: deviceID, field: "unregisteredAt", since: since)
    }

    /// Marks `token` expired at `since` (410 `ExpiredToken`).
    public func expire(token: String, deviceID: String, since: EpochMilliseconds) async throws(RedisError) {
        try await setState(token: token, deviceID: deviceID, field: "expiredAt", since: since)
    }

    /// The token works again (a reinstall brought it back, a scenario reset).
    public func reactivate(token: String, deviceID: String) async throws(RedisError) {
        let partition = keys.partitions.partition(of: deviceID)
        _ = try await client.send(RESPCommand("DEL", RESPArgument(keys.tokenState(token, partition: partition))), slot: keys.slot(partition))
    }

    private func setState(token: String, deviceID: String, field: String, since: EpochMilliseconds) async throws(RedisError) {
        let partition = keys.partitions.partition(of: deviceID)
        _ = try await client.send(
            RESPCommand("HSET", RESPArgument(keys.tokenState(token, partition: partition)), RESPArgument(field), RESPArgument(since)),
            slot: keys.slot(partition)
        )
    }
}

extension Script {
    /// KEYS: token state, rate window, log. ARGV: now, window (ms), limit (0: none), push,
    /// device id ('' for none: counted, not logged). A rejected push is not counted, as
    /// `DeviceTokenRateLimiter` does not count it.
    static let accept = Script(source: """
        local state = redis.call('HMGET', KEYS[1], 'unregisteredAt', 'expiredAt')
        if state[1] then return {'unregistered', tonumber(state[1])} end
        if state[2] then return {'expired', tonumber(state[2])} end
        local limit = tonumber(ARGV[3])
        if limit > 0 then
          local now = tonumber(ARGV[1])
          local window = tonumber(ARGV[2])
          local start = tonumber(redis.call('HGET', KEYS[2], 'start') or '-1')
          local count = tonumber(redis.call('HGET', KEYS[2], 'count') or '0')
          if start < 0 or now - start >= window then
            start = now
            count = 0
          end
          if count >= limit then return {'limited'} end
          redis.call('HSET', KEYS[2], 'start', start, 'count', count + 1)
          redis.call('PEXPIRE', KEYS[2], window * 2)
        end
        if ARGV[5] == '' then return {'accepted'} end
        local id = redis.call('XADD', KEYS[3], '*', 'push', ARGV[4], 'device', ARGV[5])
        return {'accepted', id}
        """)
}
