import NIOCore
import NIOPosix
import Synchronization

/// A client of a Redis Cluster: it reads the slot map from any node it is given, sends each
/// command to the master of its key's slot over one pipelined connection per node, and follows
/// the cluster as it changes: MOVED (the slot has a new master: read the map again, and retry
/// there), ASK (the slot is migrating: `ASKING` and retry on the node named, once), TRYAGAIN and
/// CLUSTERDOWN (wait and retry), and lost connections (connect again, read the map again).
public final class RedisClusterClient: Sendable {
    /// How often a command may be redirected or retried before it fails.
    public static let attempts = 16

    private let seeds: [RedisEndpoint]
    private let group: any EventLoopGroup
    private let connectTimeout: Duration
    private let state = Mutex(State())

    private struct State {
        var map: SlotMap?
        var connections: [RedisEndpoint: RedisConnection] = [:]
        var closed = false
    }

    /// `seeds`: any nodes of the cluster; the rest are learnt from the slot map.
    public init(seeds: [RedisEndpoint], group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, connectTimeout: Duration = .seconds(2)) {
        self.seeds = seeds
        self.group = group
        self.connectTimeout = connectTimeout
    }

    /// Reads the slot map. Throws `.cluster` when no seed answers, or when some slot has no master.
    public func start() async throws(RedisError) {
        let map = try await refreshMap()
        guard map.coversEverySlot else {
            throw RedisError(.cluster, "the cluster at \(seeds.map(\.description).joined(separator: ",")) does not serve every hash slot (is it created? `redis-cli --cluster create`)")
        }
    }

    /// The slot map last read.
    public var slotMap: SlotMap? { state.withLock { $0.map } }

    // MARK: Commands

    /// The answer of `command` from the master of `key`'s slot; a server error is thrown.
    public func send(_ command: RESPCommand, key: [UInt8]) async throws(RedisError) -> RESPValue {
        try await send(command, slot: HashSlot.of(key))
    }

    public func send(_ command: RESPCommand, key: String) async throws(RedisError) -> RESPValue {
        try await send(command, slot: HashSlot.of(key))
    }

    public func send(_ command: RESPCommand, slot: Int) async throws(RedisError) -> RESPValue {
        let value = try await pipeline([command], slot: slot)[0]
        if case .error(let message) = value { throw RedisError(.server, message) }
        return value
    }

    /// `commands`, all of keys in `slot`, written together to its master (one round trip) and
    /// answered in order; a server error other than a redirect stays a value. A redirect of the
    /// first command sends them all again to the node named; Redis redirects a pipeline whole,
    /// since every command's keys are in one slot.
    ///
    /// A connection lost with commands unanswered fails them (`.connection`) rather than send
    /// them again, since they may have run: the caller knows whether a command is safe to repeat.
    public func pipeline(_ commands: [RESPCommand], slot: Int) async throws(RedisError) -> [RESPValue] {
        guard !commands.isEmpty else { return [] }
        var target: RedisEndpoint?
        var asking = false
        var waits = false
        var lastError = RedisError(.cluster, "no master serves slot \(slot)")
        for attempt in 0..<Self.attempts {
            if waits { try await pause(attempt) }
            waits = true
            var node = target
            if node == nil { node = try? await master(ofSlot: slot) }
            guard let node else { continue }
            let connection: RedisConnection
            do {
                connection = try await self.connection(to: node)
            } catch {
                lastError = error
                target = nil
                _ = try? await refreshMap()
                continue
            }
            let answers: [RESPValue]
            do {
                answers = try await connection.pipeline(asking ? [RESPCommand("ASKING")] + commands : commands)
            } catch {
                drop(connection)
                throw error
            }
            let own = asking ? Array(answers.dropFirst()) : answers
            asking = false
            guard let redirect = own.lazy.compactMap(\.errorMessage).compactMap(Redirect.init).first else { return own }
            lastError = RedisError(.cluster, "slot \(slot): \(redirect.message) after \(attempt + 1) attempts")
            switch redirect.kind {
            case .moved(let node):
                target = node
                waits = false
                _ = try? await refreshMap()
            case .ask(let node):
                target = node
                asking = true
                waits = false
            case .retry:
                target = nil
            }
        }
        throw lastError
    }

    /// Closes every connection; commands sent afterwards fail.
    public func close() async {
        let connections = state.withLock { state -> [RedisConnection] in
            state.closed = true
            defer { state.connections = [:] }
            return Array(state.connections.values)
        }
        for connection in connections { await connection.close() }
    }

    // MARK: Nodes

    /// The pipelined connection to `node`, made on first use and again after it closed.
    public func connection(to node: RedisEndpoint) async throws(RedisError) -> RedisConnection {
        let existing = try state.withLock { state throws(RedisError) -> RedisConnection? in
            guard !state.closed else { throw RedisError(.connection, "the cluster client is closed") }
            return state.connections[node].flatMap { $0.isActive ? $0 : nil }
        }
        if let existing { return existing }
        let made = try await RedisConnection.connect(to: node, on: group, timeout: connectTimeout)
        let (kept, extra) = state.withLock { state -> (RedisConnection?, RedisConnection?) in
            guard !state.closed else { return (nil, made) }
            if let other = state.connections[node], other.isActive { return (other, made) }
            state.connections[node] = made
            return (made, nil)
        }
        if let extra { await extra.close() }
        guard let kept else { throw RedisError(.connection, "the cluster client is closed") }
        return kept
    }

    /// A connection to `node` of its own, not one the client pipelines its commands on (for a
    /// command that blocks: `RedisBlockingReader`); the caller closes it.
    public func dedicatedConnection(to node: RedisEndpoint) async throws(RedisError) -> RedisConnection {
        try state.withLock { state throws(RedisError) in
            if state.closed { throw RedisError(.connection, "the cluster client is closed") }
        }
        return try await RedisConnection.connect(to: node, on: group, timeout: connectTimeout)
    }

    /// The master of `slot`, as the slot map has it (read again when it names none).
    public func master(of slot: Int) async throws(RedisError) -> RedisEndpoint {
        guard let master = try await master(ofSlot: slot) else { throw RedisError(.cluster, "no master serves slot \(slot)") }
        return master
    }

    private func drop(_ connection: RedisConnection) {
        state.withLock { state in
            if state.connections[connection.endpoint] === connection { state.connections[connection.endpoint] = nil }
        }
    }

    private func master(ofSlot slot: Int) async throws(RedisError) -> RedisEndpoint? {
        if let master = slotMap?.master(ofSlot: slot) { return master }
        return try await refreshMap().master(ofSlot: slot)
    }

    /// Reads `CLUSTER SLOTS` from the first node that answers: the known masters first, then
    /// the seeds.
    @discardableResult
    public func refreshMap() async throws(RedisError) -> SlotMap {
        var candidates = slotMap?.masters ?? []
        candidates += seeds.filter { !candidates.contains($0) }
        var failures: [String] = []
        for node in candidates {
            do {
                let reply = try await connection(to: node).send(RESPCommand("CLUSTER", "SLOTS"))
                let map = try SlotMap(clusterSlots: reply, answeredBy: node)
                state.withLock { $0.map = map }
                return map
            } catch {
                failures.append(error.description)
            }
        }
        throw RedisError(.cluster, "no node answered CLUSTER SLOTS: " + failures.joined(separator: "; "))
    }

    /// A short wait before a retry, longer each time (a failover takes a few seconds).
    private func pause(_ attempt: Int) async throws(RedisError) {
        do {
            try await Task.sleep(for: .milliseconds(min(500, 10 << min(attempt, 6))))
        } catch {
            throw RedisError(.connection, "cancelled")
        }
    }
}

/// An error answer that sends the command elsewhere, or asks to try again.
struct Redirect {
    enum Kind: Equatable {
        case moved(RedisEndpoint)
        case ask(RedisEndpoint)
        /// TRYAGAIN (keys of a migrating slot are split), CLUSTERDOWN, MASTERDOWN, LOADING.
        case retry
    }

    let kind: Kind
    let message: String

    init?(_ message: String) {
        self.message = message
        let words = message.split(separator: " ")
        switch words.first {
        case "MOVED", "ASK":
            guard words.count >= 3, let node = RedisEndpoint(words[2]) else { return nil }
            kind = words.first == "MOVED" ? .moved(node) : .ask(node)
        case "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "LOADING":
            kind = .retry
        default:
            return nil
        }
    }
}
