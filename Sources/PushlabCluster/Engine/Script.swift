import PushlabRedis
import Synchronization

/// A Lua script run by its SHA1 (`EVALSHA`): the SHA1 is learnt from the first master's
/// `SCRIPT LOAD`, and a master that does not have the script (a replica promoted by a failover,
/// a restarted server: the script cache is per server) gets it whole (`EVAL`) once.
final class Script: Sendable {
    let source: String
    private let sha1 = Mutex<String?>(nil)

    init(source: String) {
        self.source = source
    }

    func run(on client: RedisClusterClient, slot: Int, keys: [String], arguments: [RESPArgument]) async throws(RedisError) -> RESPValue {
        let tail = [RESPArgument(keys.count)] + keys.map { RESPArgument($0) } + arguments
        var known = sha1.withLock { $0 }
        if known == nil {
            let loaded = try await client.send(RESPCommand("SCRIPT", "LOAD", RESPArgument(source)), slot: slot)
            guard let text = loaded.text else { throw RedisError(.protocolError, "SCRIPT LOAD answered \(loaded)") }
            sha1.withLock { $0 = text }
            known = text
        }
        do {
            return try await client.send(RESPCommand("EVALSHA", [RESPArgument(known!)] + tail), slot: slot)
        } catch where error.code == "NOSCRIPT" {
            return try await client.send(RESPCommand("EVAL", [RESPArgument(source)] + tail), slot: slot)
        }
    }
}
