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

    /// A push the node's rules accepted, for the engine's verdict.
    public struct Submission: Sendable {
        /// As its log entry holds it (opaque to the engine).
        public var push: [UInt8]
        public var token: String
        /// The phone that takes it; nil for none (then the token's own partition counts it,
        /// and nothing logs it).
        public var deviceID: String?
        /// The cluster's clock.
        public var now: EpochMilliseconds
        /// The per-token rate limit, nil for none.
        public var limit: APNsPolicy.RateLimit?

        public init(push: [UInt8], token: String, deviceID: String?, now: EpochMilliseconds, limit: APNsPolicy.RateLimit?) {
            self.push = push
            self.token = token
            self.deviceID = deviceID
            self.now = now
            self.limit = limit
        }
    }

    /// The partition whose master decides `submission`.
    public func partition(of submission: Submission) -> Int {
        keys.partitions.partition(of: submission.deviceID ?? submission.token)
    }

    /// One push's verdict (`acceptTogether` of one).
    public func accept(
        _ push: [UInt8], token: String, deviceID: String?, now: EpochMilliseconds, limit: APNsPolicy.RateLimit?
    ) async throws(RedisError) -> Verdict {
        try await acceptTogether([Submission(push: push, token: token, deviceID: deviceID, now: now, limit: limit)])[0]
    }

    /// The verdicts on `submissions`, in their order, from one script on one master: every
    /// submission's partition must be on the master of the first's (`RedisClusterClient.slotMap`).
    /// The script reads every partition's token states before it writes anything, so a
    /// partition that turns out not to be on that master (a failover moved it) fails the whole
    /// call with nothing written, and the slot map is read again. Each partition's accepted
    /// pushes go into its log as one entry, in order.
    public func acceptTogether(_ submissions: [Submission]) async throws(RedisError) -> [Verdict] {
        guard !submissions.isEmpty else { return [] }
        let partitions = submissions.map(partition(of:))
        var order: [Int] = []
        var members: [Int: [Int]] = [:]
        for (index, partition) in partitions.enumerated() {
            if members[partition] == nil { order.append(partition) }
            members[partition, default: []].append(index)
        }
        var arguments = [RESPArgument(order.count)]
        arguments.reserveCapacity(1 + 3 * order.count + 7 * submissions.count)
        for partition in order {
            let indices = members[partition]!
            arguments += [RESPArgument(keys.log(partition)), RESPArgument(keys.tokenStates(partition)), RESPArgument(indices.count)]
            for index in indices {
                let submission = submissions[index]
                arguments += [
                    RESPArgument(submission.token), RESPArgument(submission.deviceID ?? ""), RESPArgument(submission.now),
                    RESPArgument(Int64((submission.limit?.perSeconds ?? 0) * 1000)), RESPArgument(submission.limit?.requests ?? 0),
                    RESPArgument(keys.rateWindow(submission.token, partition: partition)), RESPArgument(bytes: Self.framed(submission.push)),
                ]
            }
        }
        let wait = replicas > 0 ? [RESPCommand("WAIT", RESPArgument(replicas), RESPArgument(Int64(replicaTimeout / .milliseconds(1))))] : []
        let answer: RESPValue
        let waited: [RESPValue]
        do {
            (answer, waited) = try await Script.accept.run(
                on: client, slot: keys.slot(partitions[0]), keys: [keys.log(partitions[0])], arguments: arguments, then: wait
            )
        } catch {
            if error.description.contains("non local key") { _ = try? await client.refreshMap() }
            throw error
        }
        if let reached = waited.first?.integer, reached < replicas {
            throw RedisError(.cluster, "the push reached \(reached) of \(replicas) replicas in \(replicaTimeout)")
        }
        guard let groups = answer.elements, groups.count == order.count else {
            throw RedisError(.protocolError, "the intake script answered \(answer)")
        }
        var verdicts = [Verdict](repeating: .tooManyRequests, count: submissions.count)
        for (partition, group) in zip(order, groups) {
            let indices = members[partition]!
            guard let fields = group.elements, fields.count == indices.count + 1 else {
                throw RedisError(.protocolError, "the intake script answered \(group) for partition \(partition)")
            }
            let id = fields[0].text.flatMap(StreamID.init)
            for (index, field) in zip(indices, fields.dropFirst()) {
                verdicts[index] = try Self.verdict(field, logged: submissions[index].deviceID == nil ? nil : id)
            }
        }
        return verdicts
    }

    /// One push's answer from the script: `a` accepted, `u`/`e` with a time, `l` limited.
    private static func verdict(_ value: RESPValue, logged id: StreamID?) throws(RedisError) -> Verdict {
        guard let text = value.text, let kind = text.first else { throw RedisError(.protocolError, "the intake script answered \(value)") }
        let since = EpochMilliseconds(text.dropFirst(2))
        switch (kind, since) {
        case ("a", _): return .accepted(id)
        case ("u", let since?): return .unregistered(since: since)
        case ("e", let since?): return .expired(since: since)
        case ("l", _): return .tooManyRequests
        default: throw RedisError(.protocolError, "the intake script answered \(text)")
        }
    }

    /// A push as a log entry holds it among others: its length (4 bytes, big-endian), then it.
    static func framed(_ push: [UInt8]) -> [UInt8] {
        let count = UInt32(push.count)
        return [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)] + push
    }

    /// The pushes of an entry's `pushes` field; nil when it is not a sequence of frames.
    static func unframed(_ bytes: [UInt8]) -> [[UInt8]]? {
        var pushes: [[UInt8]] = []
        var at = 0
        while at < bytes.count {
            guard at + 4 <= bytes.count else { return nil }
            let count = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            at += 4
            guard at + count <= bytes.count else { return nil }
            pushes.append(Array(bytes[at..<at + count]))
            at += count
        }
        return pushes
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
        try await setState(token: token, deviceID: deviceID, state: "u:\(since)")
    }

    /// Marks `token` expired at `since` (410 `ExpiredToken`).
    public func expire(token: String, deviceID: String, since: EpochMilliseconds) async throws(RedisError) {
        try await setState(token: token, deviceID: deviceID, state: "e:\(since)")
    }

    /// The token works again (a reinstall brought it back, a scenario reset).
    public func reactivate(token: String, deviceID: String) async throws(RedisError) {
        let partition = keys.partitions.partition(of: deviceID)
        _ = try await client.send(RESPCommand("HDEL", RESPArgument(keys.tokenStates(partition)), RESPArgument(token)), slot: keys.slot(partition))
    }

    private func setState(token: String, deviceID: String, state: String) async throws(RedisError) {
        let partition = keys.partitions.partition(of: deviceID)
        _ = try await client.send(
            RESPCommand("HSET", RESPArgument(keys.tokenStates(partition)), RESPArgument(token), RESPArgument(state)),
            slot: keys.slot(partition)
        )
    }
}

extension Script {
    /// One call a master for a batch of pushes of several partitions on it (hence
    /// `allow-cross-slot-keys`; KEYS holds only the first partition's log, for routing).
    /// ARGV: the number of partitions, then per partition its log, its token states' hash, its
    /// number of pushes, and per push: token, device id ('' for none: counted, not logged), now,
    /// window (ms), limit (0: none), the token's window key, the push framed.
    ///
    /// Every partition's token states are read before anything is written: a key that is not on
    /// this master fails the call there, with nothing written. A rejected push is not counted,
    /// as `DeviceTokenRateLimiter` does not count it. Answers per partition the entry id of its
    /// accepted pushes (or false), then a verdict a push: `a`, `u:<ms>`, `e:<ms>` or `l`.
    static let accept = Script(source: """
        #!lua flags=allow-cross-slot-keys
        local partitions = tonumber(ARGV[1])
        local plan = {}
        local at = 2
        for p = 1, partitions do
          local count = tonumber(ARGV[at + 2])
          local tokens = {}
          for i = 1, count do tokens[i] = ARGV[at + 3 + (i - 1) * 7] end
          plan[p] = {log = ARGV[at], first = at + 3, count = count, states = redis.call('HMGET', ARGV[at + 1], unpack(tokens))}
          at = at + 3 + count * 7
        end
        local answer = {}
        for p = 1, partitions do
          local part = plan[p]
          local verdicts = {}
          local accepted = {}
          for i = 1, part.count do
            local a = part.first + (i - 1) * 7
            local verdict = part.states[i]
            if not verdict then
              verdict = 'a'
              local limit = tonumber(ARGV[a + 4])
              if limit > 0 then
                local now = tonumber(ARGV[a + 2])
                local window = tonumber(ARGV[a + 3])
                local start, count = -1, 0
                local kept = redis.call('GET', ARGV[a + 5])
                if kept then
                  local s, c = string.match(kept, '^(-?%d+):(%d+)$')
                  start, count = tonumber(s), tonumber(c)
                end
                if start < 0 or now - start >= window then
                  start = now
                  count = 0
                end
                if count >= limit then
                  verdict = 'l'
                else
                  redis.call('SET', ARGV[a + 5], start .. ':' .. (count + 1), 'PX', window * 2)
                end
              end
              if verdict == 'a' and ARGV[a + 1] ~= '' then accepted[#accepted + 1] = ARGV[a + 6] end
            end
            verdicts[i] = verdict
          end
          local id = false
          if #accepted > 0 then id = redis.call('XADD', part.log, '*', 'pushes', table.concat(accepted)) end
          table.insert(verdicts, 1, id)
          answer[p] = verdicts
        end
        return answer
        """)
}
