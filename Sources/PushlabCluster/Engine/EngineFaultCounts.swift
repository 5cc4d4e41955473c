import Logging
import PushlabCore
import PushlabRedis

/// The counts of the fault rules with `count` or `everyNth`, kept in the engine so that a rule
/// counts every node's requests as one process counts its own: `count: 1` fires once in the
/// whole cluster, `everyNth: 3` on every third request whichever node took it.
/// It is the node's `FaultCounter`: an engine that cannot be asked leaves the requests
/// unanswered there, and they are answered 500.
public struct EngineFaultCounts: FaultCounter {
    public let client: RedisClusterClient
    public let keys: EngineKeys
    let logger: Logger

    public init(client: RedisClusterClient, keys: EngineKeys, logger: Logger = Logger(label: "pushlab.cluster")) {
        self.client = client
        self.keys = keys
        self.logger = logger
    }

    public func check(_ checks: [FaultCheck], done: @escaping @Sendable ([FaultCheckResult]) -> Void) {
        Task {
            do {
                done(try await check(checks))
            } catch {
                logger.warning("The engine did not count \(checks.count) request(s) for fault rules: answered 500", metadata: ["error": "\(error)"])
                done([])
            }
        }
    }

    /// Each check in turn, in one script: the rule's `matched` goes up; it fires on its Nth
    /// when the draw was lucky, unless it has fired `count` times already.
    public func check(_ checks: [FaultCheck]) async throws(RedisError) -> [FaultCheckResult] {
        guard let first = checks.first else { return [] }
        var arguments: [RESPArgument] = []
        for check in checks {
            arguments += [RESPArgument(check.everyNth ?? 0), RESPArgument(check.count ?? 0), RESPArgument(check.lucky ? "1" : "0")]
        }
        let (answer, _) = try await Self.script.run(
            on: client, slot: HashSlot.of(keys.faultCounts(first.rule)), keys: checks.map { keys.faultCounts($0.rule) }, arguments: arguments
        )
        guard let codes = answer.elements?.compactMap(\.integer), codes.count == checks.count else {
            throw RedisError(.protocolError, "checking fault rules answered \(answer)")
        }
        return codes.map { code in
            switch code {
            case 1: .fires
            case 2: .firesLast
            case 3: .spent
            default: .passes
            }
        }
    }

    /// Each rule's `matched` and `fired` as the engine counted them (zero for a rule no request
    /// reached yet).
    public func counts(_ rules: [String]) async throws(RedisError) -> [String: (matched: Int, fired: Int)] {
        var counts: [String: (matched: Int, fired: Int)] = [:]
        for rule in rules {
            let key = keys.faultCounts(rule)
            let answer = try await client.send(RESPCommand("HMGET", RESPArgument(key), "matched", "fired"), key: key)
            let values = (answer.elements ?? []).map { $0.text.flatMap(Int.init) ?? 0 }
            counts[rule] = (values.first ?? 0, values.dropFirst().first ?? 0)
        }
        return counts
    }

    private static let script = Script(source: """
    local results = {}
    for i = 1, #KEYS do
      local everyNth = tonumber(ARGV[(i - 1) * 3 + 1])
      local count = tonumber(ARGV[(i - 1) * 3 + 2])
      local lucky = ARGV[(i - 1) * 3 + 3] == '1'
      local fired = tonumber(redis.call('HGET', KEYS[i], 'fired') or '0')
      if count > 0 and fired >= count then
        results[i] = 3
      else
        local matched = redis.call('HINCRBY', KEYS[i], 'matched', 1)
        if lucky and (everyNth == 0 or matched % everyNth == 0) then
          fired = redis.call('HINCRBY', KEYS[i], 'fired', 1)
          if count > 0 and fired >= count then results[i] = 2 else results[i] = 1 end
        else
          results[i] = 0
        end
      end
    end
    return results
    """)
}
