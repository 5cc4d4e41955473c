import Synchronization

/// A connection of its own for a command that blocks until there is something to read
/// (`XREAD BLOCK`): on the cluster client's pipelined connections it would hold back every
/// command queued behind it. A reader that waits this way costs the engine nothing while nothing
/// comes, where polling costs a command each time (Benchmarks/results/2026-12-02-idle-cluster.md).
///
/// It follows the slot's master: a connection that fails, or a slot that moved, is dropped, and
/// the next call connects to the master the refreshed slot map names. One caller at a time.
public final class RedisBlockingReader: Sendable {
    private let client: RedisClusterClient
    private let connection = Mutex<RedisConnection?>(nil)

    public init(client: RedisClusterClient) {
        self.client = client
    }

    /// The answer of `command` (of keys in `slot`) from the slot's master, however long the
    /// command blocks there. A redirect, a lost connection or a server error is thrown; the
    /// caller waits a moment and asks again.
    public func send(_ command: RESPCommand, slot: Int) async throws(RedisError) -> RESPValue {
        let current = try await connection(toMasterOf: slot)
        let value: RESPValue
        do {
            value = try await current.answer(command)
        } catch {
            await drop(current)
            throw error
        }
        guard case .error(let message) = value else { return value }
        if message.hasPrefix("MOVED") || message.hasPrefix("ASK") || message.hasPrefix("TRYAGAIN") || message.hasPrefix("CLUSTERDOWN") {
            await drop(current)
            _ = try? await client.refreshMap()
        }
        throw RedisError(.server, message)
    }

    /// Closes the connection: a command blocked on it fails at once.
    public func close() async {
        let current = connection.withLock { connection in
            defer { connection = nil }
            return connection
        }
        await current?.close()
    }

    private func connection(toMasterOf slot: Int) async throws(RedisError) -> RedisConnection {
        let master = try await client.master(of: slot)
        if let kept = connection.withLock({ $0 }), kept.isActive, kept.endpoint == master { return kept }
        let made = try await client.dedicatedConnection(to: master)
        let replaced = connection.withLock { connection in
            defer { connection = made }
            return connection
        }
        await replaced?.close()
        return made
    }

    private func drop(_ failed: RedisConnection) async {
        let dropped = connection.withLock { connection -> Bool in
            guard connection === failed else { return false }
            connection = nil
            return true
        }
        if dropped { await failed.close() }
    }
}
