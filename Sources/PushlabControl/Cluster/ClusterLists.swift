import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import PushlabCore

/// The lists across phones in a cluster (`GET /v1/devices`, `/v1/observations`, `/v1/pushes`):
/// the node asked gathers each live node's share (`localHeader`: the phones that node simulates,
/// the requests it answered) and merges them.
enum ClusterLists {
    /// Asks a node for its own share of a list only.
    static let localHeader = HTTPField.Name("pushlab-local")!
    /// Asks a node (with `localHeader`, of `GET /v1/health`) to number its next observations
    /// after this one: so the numbers of every node's observations go on after the newest any
    /// node had, and "after N" means the same on all of them.
    static let sequenceFloorHeader = HTTPField.Name("pushlab-sequence-floor")!

    /// Makes every node number its next observations after `last` (`sequenceFloorHeader`).
    static func raiseSequences(_ routing: any ClusterRouting, after last: Int64, request: Request) async throws {
        _ = try await gather(routing, path: "/v1/health", request: request, headers: [(sequenceFloorHeader.rawName, String(last))], everyPhone: false)
    }

    /// The newest observation's number on any node, each node numbering after it from now on.
    static func lastObservation(_ routing: any ClusterRouting, request: Request) async throws -> (last: Int64, health: [JSONValue]) {
        let health = try await gather(routing, path: "/v1/health", request: request, everyPhone: false)
        let last = health.compactMap { $0["lastObservation"]?.integerValue }.max() ?? 0
        try await raiseSequences(routing, after: last, request: request)
        return (last, health)
    }

    /// The partitions of phones a node simulated when it gave its share (`ownedHeader`).
    static let ownedHeader = HTTPField.Name("pushlab-owned-partitions")!

    /// How long a list waits for phones that are moving between nodes.
    static let movingWait = Duration.seconds(5)

    /// `path` (with its query) from every live node, this one included, each answering for its
    /// share; their JSON answers. Every phone is in one share: while a partition is between two
    /// nodes, or a node that left or died is still counted live, the list is asked again, for up
    /// to `movingWait`; then it fails (503), as a share would be missing. A node's refusal (the
    /// request is wrong) fails it at once. `everyPhone`: false for what is no list of phones
    /// (health), which takes the shares of the nodes that answer as they are.
    static func gather(
        _ routing: any ClusterRouting, path: String, request: Request, headers: [(String, String)] = [], everyPhone: Bool = true
    ) async throws -> [JSONValue] {
        let deadline = ContinuousClock.now + movingWait
        while true {
            let shares = try await gatherOnce(routing, path: path, request: request, headers: headers)
            let answered = shares.compactMap { try? $0.get() }
            guard everyPhone else { return answered.map(\.json) }
            let owned = answered.flatMap(\.owned)
            let unreachable = shares.compactMap { share -> ControlError? in
                if case .failure(let error) = share { return error }
                return nil
            }
            if unreachable.isEmpty, owned.count == routing.status.partitions, Set(owned).count == owned.count { return answered.map(\.json) }
            guard ContinuousClock.now < deadline else {
                throw unreachable.first ?? ControlError(
                    .serviceUnavailable, "Phones are moving between nodes (a node joined, left or died), so the list would miss some. Try again in a few seconds."
                )
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Each live node's share, or why it could not be had.
    private static func gatherOnce(
        _ routing: any ClusterRouting, path: String, request: Request, headers: [(String, String)]
    ) async throws -> [Result<(json: JSONValue, owned: [Int]), ControlError>] {
        let addresses = await routing.controlAddresses()
        let authorization = request.headers[.authorization]
        return try await withThrowingTaskGroup(of: Result<(json: JSONValue, owned: [Int]), ControlError>.self) { group in
            for (node, address) in addresses {
                group.addTask {
                    var asked = HTTPClientRequest(url: address + path)
                    asked.headers.add(name: localHeader.rawName, value: "1")
                    if let authorization { asked.headers.add(name: "authorization", value: authorization) }
                    for (name, value) in headers { asked.headers.add(name: name, value: value) }
                    let answer: HTTPClientResponse
                    let body: ByteBuffer
                    do {
                        answer = try await ClusterHTTP.client.execute(asked, timeout: .seconds(30))
                        body = try await answer.body.collect(upTo: ClusterHTTP.maximumBody)
                    } catch {
                        return .failure(ControlError(
                            .serviceUnavailable,
                            "Node \(node) (\(address)) did not give its share of the list: \(error). Try again: a dead node's phones move to another within seconds."
                        ))
                    }
                    let json = try? JSONParser.parse(Array(body.readableBytesView))
                    guard answer.status == .ok, let json else {
                        let message = json?["error"]?.stringValue ?? "status \(answer.status.code)"
                        throw ControlError(HTTPResponse.Status(code: Int(answer.status.code)), "Node \(node) refused its share of the list: \(message)")
                    }
                    let owned = answer.headers.first(name: ownedHeader.rawName)?.split(separator: ",").compactMap { Int($0) } ?? []
                    return .success((json, owned))
                }
            }
            var answers: [Result<(json: JSONValue, owned: [Int]), ControlError>] = []
            for try await answer in group { answers.append(answer) }
            return answers
        }
    }

    /// The elements of `field` in every answer.
    static func merged(_ answers: [JSONValue], field: String) -> [JSONValue] {
        answers.flatMap { answer -> [JSONValue] in
            guard case .array(let items)? = answer[field] else { return [] }
            return items
        }
    }
}
