import Hummingbird
import PushlabCore

/// Fault rules: what the APNs service does to requests instead of (or besides) answering them.
extension ControlAPI {
    var faultRoutes: [Route] {
        [
            Route(.get, "/v1/faults", listFaults),
            Route(.post, "/v1/faults", addFault),
            Route(.delete, "/v1/faults", removeAllFaults),
            Route(.delete, "/v1/faults/:faultId", removeFault),
        ]
    }

    /// The rules in the order they are checked, with their counts so far: on a cluster, a rule
    /// with `count` or `everyNth` has the engine's, of every node's requests, and is gone once
    /// it has fired its count.
    @Sendable func listFaults(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        var rules = faults.rules
        if let routing = clusterRouting, rules.contains(where: \.isCounted) {
            let counts: [String: (matched: Int, fired: Int)]
            do {
                counts = try await routing.faultCounts(rules.filter(\.isCounted).map(\.id))
            } catch {
                throw ControlError(.serviceUnavailable, "The cluster's engine did not give the rules' counts: \(error). Try again.")
            }
            rules = rules.compactMap { rule in
                guard let count = counts[rule.id] else { return rule }
                let counted = rule.counted(matched: count.matched, fired: count.fired)
                return counted.remaining.map { $0 > 0 } ?? true ? counted : nil
            }
        }
        return JSONResponse(.object([("faults", .array(rules.map(\.controlJSON)))])).response
    }

    /// 201 with the rule and its id; it applies from the next request on.
    @Sendable func addFault(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let rule = try await request.decode(FaultBody.self).value.rule()
        do {
            return JSONResponse(status: .created, try faults.add(rule).controlJSON).response
        } catch {
            throw ControlError.invalid(error.description)
        }
    }

    @Sendable func removeAllFaults(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let count = faults.rules.count
        faults.removeAll()
        return JSONResponse(.object([("removed", .number(Double(count)))])).response
    }

    @Sendable func removeFault(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try context.pathParameter("faultId")
        // A cluster's rule that fired its count on other nodes is gone, as it is in one process.
        if let routing = clusterRouting, let rule = faults.rules.first(where: { $0.id == id }), let count = rule.count,
           let fired = try? await routing.faultCounts([id])[id]?.fired, fired >= count {
            faults.remove(id: id)
        }
        guard faults.remove(id: id) else { throw ControlError.notFound("No fault rule \(id) (a rule with a count is removed once it has fired that often)") }
        return JSONResponse(.object([("removed", .number(1))])).response
    }
}
