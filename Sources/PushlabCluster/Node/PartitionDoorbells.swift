import PushlabRedis
import Synchronization

/// What an idle node waits on instead of reading every partition it simulates again and again:
/// one `XREAD BLOCK` for each, on a connection of its own (`RedisBlockingReader`; one command
/// cannot block on the logs of several partitions, whose keys are in slots of their own). The
/// first push appended to any of them wakes the rounds. Under load the rounds never wait and no
/// doorbell is sent; idle, a partition costs the engine one command for each `limit`, where
/// polling cost one each round (Benchmarks/results/2026-12-02-idle-cluster.md).
///
/// An idle partition's log holds nothing this node has read: a round takes what it read before
/// it ends. So a doorbell asks for any entry at all (`0-0`), and one that is still there after a
/// round (a taking that failed, a push another consumer holds) rings at once, and the rounds back
/// off as they did before.
final class PartitionDoorbells: Sendable {
    private let client: RedisClusterClient
    private let keys: EngineKeys

    private struct Watch {
        let reader: RedisBlockingReader
        /// The log it waits on (a new world's log is another key).
        var log: String
        var inFlight: Bool
    }

    private struct State {
        var watches: [Int: Watch] = [:]
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Which wait a timer belongs to: a late timer does not end the next wait.
        var generation: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// How long a doorbell that failed waits before it wakes the rounds: a master failing over
    /// fails every command sent to it at once, for a few seconds.
    static let pauseAfterFailure = Duration.milliseconds(100)

    init(client: RedisClusterClient, keys: EngineKeys) {
        self.client = client
        self.keys = keys
    }

    /// Waits until a push is appended to one of `partitions` (or is there already), or `limit`
    /// passes. Doorbells of partitions no longer in `partitions` are taken down.
    func wait(for partitions: [Int], upTo limit: Duration) async {
        let (send, stale) = prepare(partitions)
        for reader in stale { await reader.close() }
        for (partition, watch) in send { ring(when: watch, of: partition, limit: limit) }
        await withCheckedContinuation { continuation in
            let (now, generation) = state.withLock { state -> (Bool, UInt64) in
                state.generation += 1
                if state.rung || state.closed {
                    state.rung = false
                    return (true, state.generation)
                }
                state.waiter = continuation
                return (false, state.generation)
            }
            if now { return continuation.resume() }
            Task { [self] in
                try? await Task.sleep(for: limit)
                wake(generation: generation)
            }
        }
    }

    /// Ends the wait in progress, or the next one, at once: this node's partitions changed (a
    /// gain, a new world), and the rounds should read them now rather than after a doorbell's
    /// `limit`.
    func ring() {
        wake(generation: nil)
    }

    /// Takes every doorbell down: a wait in progress ends, and later ones return at once.
    func close() async {
        let (readers, waiter) = state.withLock { state in
            state.closed = true
            defer {
                state.watches = [:]
                state.waiter = nil
            }
            return (state.watches.values.map(\.reader), state.waiter)
        }
        waiter?.resume()
        for reader in readers { await reader.close() }
    }

    /// The doorbells to send now (each partition's, unless one is on its way), and the readers of
    /// partitions let go or of an old world, to close.
    private func prepare(_ partitions: [Int]) -> (send: [(Int, Watch)], stale: [RedisBlockingReader]) {
        let wanted = Set(partitions)
        return state.withLock { state in
            guard !state.closed else { return ([], []) }
            var stale: [RedisBlockingReader] = []
            for (partition, watch) in state.watches where !wanted.contains(partition) || watch.log != keys.log(partition) {
                stale.append(watch.reader)
                state.watches[partition] = nil
            }
            var send: [(Int, Watch)] = []
            for partition in partitions.sorted() {
                var watch = state.watches[partition] ?? Watch(reader: RedisBlockingReader(client: client), log: keys.log(partition), inFlight: false)
                guard !watch.inFlight else { continue }
                watch.inFlight = true
                state.watches[partition] = watch
                send.append((partition, watch))
            }
            return (send, stale)
        }
    }

    private func ring(when watch: Watch, of partition: Int, limit: Duration) {
        let slot = keys.slot(partition)
        Task { [self] in
            let command = RESPCommand(
                "XREAD", "COUNT", "1", "BLOCK", RESPArgument(max(1, Int64(limit / .milliseconds(1)))), "STREAMS", RESPArgument(watch.log), "0-0"
            )
            let arrived: Bool
            do {
                arrived = try await !watch.reader.send(command, slot: slot).isNull
            } catch {
                // A failover, a closed reader, a slot that moved: a push may have come meanwhile,
                // so the rounds read again after a pause (their next wait sends it again).
                try? await Task.sleep(for: Self.pauseAfterFailure)
                arrived = true
            }
            state.withLock { state in
                if state.watches[partition]?.reader === watch.reader { state.watches[partition]?.inFlight = false }
            }
            if arrived { wake(generation: nil) }
        }
    }

    /// Ends the wait in progress (of `generation` only, for a timer), or the next one at once.
    private func wake(generation: UInt64?) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let generation, generation != state.generation { return nil }
            guard let waiter = state.waiter else {
                if generation == nil { state.rung = true }
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }
}
