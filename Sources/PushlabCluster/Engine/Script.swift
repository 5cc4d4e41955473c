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

    /// `then`: commands sent right behind the script on the same connection (`WAIT`), whose
    /// answers are checked for errors only.
    func run(
        on client: RedisClusterClient, slot: Int, keys: [String], arguments: [RESPArgument], then: [RESPCommand] = []
    ) async throws(RedisError) -> (script: RESPValue, then: [RESPValue]) {
        let tail = [RESPArgument(keys.count)] + keys.map { RESPArgument($0) } + arguments
        let known = try await sha1(loadingOn: client, slot: slot)
        var answers = try await client.pipeline([RESPCommand("EVALSHA", [RESPArgument(known)] + tail)] + then, slot: slot)
        if answers[0].errorMessage?.hasPrefix("NOSCRIPT") == true {
            answers = try await client.pipeline([RESPCommand("EVAL", [RESPArgument(source)] + tail)] + then, slot: slot)
        }
        if let failure = answers.compactMap(\.errorMessage).first { throw RedisError(.server, failure) }
        return (answers[0], Array(answers.dropFirst()))
    }

    /// Runs it once for each of `calls`, in one pipeline to the master of `slot`: every call's
    /// keys must be in a slot of that master (each call's in one slot). The answers in order; a
    /// call that failed (a master without the script, a slot that moved) is an error value, for
    /// the caller to `run` again alone.
    func runAll(on client: RedisClusterClient, slot: Int, calls: [(keys: [String], arguments: [RESPArgument])]) async throws(RedisError) -> [RESPValue] {
        let known = try await sha1(loadingOn: client, slot: slot)
        let commands = calls.map { call in
            RESPCommand("EVALSHA", [RESPArgument(known), RESPArgument(call.keys.count)] + call.keys.map { RESPArgument($0) } + call.arguments)
        }
        return try await client.pipeline(commands, slot: slot)
    }

    private func sha1(loadingOn client: RedisClusterClient, slot: Int) async throws(RedisError) -> String {
        if let known = sha1.withLock({ $0 }) { return known }
        let loaded = try await client.send(RESPCommand("SCRIPT", "LOAD", RESPArgument(source)), slot: slot)
        guard let text = loaded.text else { throw RedisError(.protocolError, "SCRIPT LOAD answered \(loaded)") }
        sha1.withLock { $0 = text }
        return text
    }
}
