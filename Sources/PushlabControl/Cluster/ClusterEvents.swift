import AsyncHTTPClient
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// `/v1/events` on a cluster node: the events of every node, not only this one's. Beside this
/// node's own, each other live node's stream of its share (`ClusterLists.localHeader`) is read
/// and its events go to the client as they come, through the client's bounded buffer. A node
/// that joins is followed within `recheck`; one that dies ends its stream.
enum ClusterEvents {
    static let recheck = Duration.seconds(2)

    /// Relays the other nodes' events into `subscriber` until the task is cancelled.
    static func relay(_ routing: any ClusterRouting, into subscriber: EventSubscriber, authorization: String?) -> Task<Void, Never> {
        Task {
            let node = routing.status.node
            let followed = Followed()
            await withTaskGroup(of: Void.self) { group in
                while !Task.isCancelled {
                    for (other, address) in await routing.controlAddresses() where other != node {
                        guard followed.start(other) else { continue }
                        group.addTask {
                            await follow(address, into: subscriber, authorization: authorization)
                            followed.end(other)
                        }
                    }
                    try? await Task.sleep(for: recheck)
                }
                group.cancelAll()
            }
        }
    }

    /// The nodes whose events are being read.
    private final class Followed: Sendable {
        private let nodes = Mutex<Set<String>>([])

        /// False when it is followed already.
        func start(_ node: String) -> Bool { nodes.withLock { $0.insert(node).inserted } }

        func end(_ node: String) { _ = nodes.withLock { $0.remove(node) } }
    }

    /// One node's events, until it ends its stream or the task is cancelled.
    private static func follow(_ address: String, into subscriber: EventSubscriber, authorization: String?) async {
        var request = HTTPClientRequest(url: address + "/v1/events")
        request.headers.add(name: ClusterLists.localHeader.rawName, value: "1")
        if let authorization { request.headers.add(name: "authorization", value: authorization) }
        do {
            let response = try await ClusterHTTP.streamingClient.execute(request, deadline: .distantFuture)
            guard response.status == .ok else { return }
            var pending: [UInt8] = []
            for try await chunk in response.body {
                // The client went away: the stream is dropped, which closes the connection (and
                // the other node then lets go of its side). At the latest a keep-alive later.
                if Task.isCancelled { return }
                pending += chunk.readableBytesView
                // Whole events only: each ends with a blank line. Comments (keep-alives) stay here.
                while let end = eventEnd(in: pending) {
                    let event = Array(pending[..<end])
                    pending.removeFirst(end)
                    if event.first != UInt8(ascii: ":") { _ = subscriber.send(.event(event)) }
                }
            }
        } catch {
            // The node went away, or the client did: the next check follows it again if it is live.
        }
    }

    /// Where the first event in `bytes` ends (after its "\n\n"), if it is whole.
    static func eventEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for index in 1..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0A {
            return index + 1
        }
        return nil
    }
}
