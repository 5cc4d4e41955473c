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

    /// The rules in the order they are checked, with their counts so far.
    @Sendable func listFaults(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse(.object([("faults", .array(faults.rules.map(\.controlJSON)))])).response
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
        guard faults.remove(id: id) else { throw ControlError.notFound("No fault rule \(id) (a rule with a count is removed once it has fired that often)") }
        return JSONResponse(.object([("removed", .number(1))])).response
    }
}
