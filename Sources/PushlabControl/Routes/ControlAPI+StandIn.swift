import Hummingbird
import NIOCore
import PushlabCore
import PushlabScenario

/// The stand-in backend (`/stand-in/…`) and its rules and log (`/v1/stand-in`).
extension ControlAPI {
    var standInRoutes: [Route] {
        [
            Route(.get, "/v1/stand-in", readStandIn),
            Route(.put, "/v1/stand-in/rules", replaceStandInRules),
            Route(.delete, "/v1/stand-in/requests", clearStandInRequests),
        ] + [HTTPRequest.Method.get, .post, .put, .patch, .delete].map { Route($0, "/stand-in/**", answerAsStandIn) }
    }

    /// Answers as the app's backend would: the first rule that fits, after its delay.
    @Sendable func answerAsStandIn(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let body = try await request.collectLimitedBody()
        let path = String(request.uri.path.dropFirst("/stand-in".count))
        let rule = standIn.rule(method: request.method.rawValue, path: path.isEmpty ? "/" : path)
        standIn.record(StandInBackend.Received(
            time: simulator.clock.now(), method: request.method.rawValue, path: path.isEmpty ? "/" : path, query: request.uri.query,
            headers: request.headers.map { ($0.name.canonicalName, $0.value) }, body: String(buffer: body), status: rule?.status ?? 200
        ))
        if let delay = rule?.delaySeconds, delay > 0, try await !standIn.waitOut(seconds: delay) {
            return JSONResponse(status: .serviceUnavailable, .object([("error", .string("Pushlab is shutting down"))])).response
        }
        let status = HTTPResponse.Status(code: rule?.status ?? 200)
        return JSONResponse(status: status, rule?.body ?? .object([])).response
    }

    @Sendable func readStandIn(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        _ = try QueryParameters(request, allowed: [])
        let rules = standIn.currentRules.map(\.controlJSON)
        // On a cluster, each node's stand-in heard the apps of the phones it simulates: all of
        // them, oldest first (the rules are every node's).
        if let routing = clusterWide(request) {
            let answers = try await ClusterLists.gather(routing, path: "/v1/stand-in", request: request, everyPhone: false)
            let requests = ClusterLists.merged(answers, field: "requests").enumerated()
                .sorted { ($0.element["time"]?.stringValue ?? "", $0.offset) < ($1.element["time"]?.stringValue ?? "", $1.offset) }.map(\.element)
            return JSONResponse(.object([("rules", .array(rules)), ("requests", .array(requests))])).response
        }
        let requests = standIn.requests.map { received -> JSONValue in
            var fields = JSONFields()
            fields.addTime("time", received.time)
            fields.add("method", received.method)
            fields.add("path", received.path)
            fields.add("query", received.query)
            fields.add("headers", JSONValue.object(received.headers.map { ($0.name, .string($0.value)) }))
            fields.add("body", received.body.isEmpty ? nil : ((try? JSONParser.parse(Array(received.body.utf8))) ?? .string(received.body)))
            fields.add("status", received.status)
            return fields.json
        }
        return JSONResponse(.object([("rules", .array(rules)), ("requests", .array(requests))])).response
    }

    /// `{"rules": [...]}`: replaces every rule.
    @Sendable func replaceStandInRules(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let decoded = try await request.decode(StandInRulesBody.self)
        guard case .array(let values)? = decoded.json["rules"] else { throw ControlError.invalid("Give rules, a list, e.g. \(StandInRulesBody.example)") }
        var rules: [StandInRule] = []
        for (index, value) in values.enumerated() {
            do {
                rules.append(try StandInRule.parse(value, place: "rules[\(index)]"))
            } catch {
                throw ControlError.invalid(error.description)
            }
        }
        standIn.replaceRules(rules)
        return JSONResponse(.object([("rules", .array(rules.map(\.controlJSON)))])).response
    }

    @Sendable func clearStandInRequests(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        standIn.clearRequests()
        return JSONResponse(.object([("cleared", .bool(true))])).response
    }
}

struct StandInRulesBody: ControlBody {
    static let shape = BodyShape.fields(["rules"])
    static let example = #"{"rules":[{"path":"/devices","method":"POST","status":500,"body":{"error":"database down"}}]}"#
}

extension StandInRule {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("path", path)
        fields.add("method", method)
        fields.add("status", status)
        fields.add("body", body)
        if delaySeconds > 0 { fields.add("delaySeconds", delaySeconds) }
        return fields.json
    }
}
