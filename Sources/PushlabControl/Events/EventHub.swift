import Hummingbird
import PushlabCore
import PushlabSimulator
import Synchronization

/// Fans every APNs request and every observation out to the clients of `/v1/events`, as
/// server-sent events. Each client has a bounded buffer: a client that reads too slowly loses
/// the newest events, never slows the server, and is told how many it lost (`event: dropped`).
///
/// With no client connected, publishing costs one atomic load.
final class EventHub: ObservationSink, Sendable {
    /// How many events wait for one client before new ones are dropped.
    let bufferSize: Int
    /// How often an idle stream gets a comment line, so proxies keep it open and a client that
    /// went away is noticed.
    let heartbeat: Duration

    private struct Clients {
        var subscribers: [UInt64: EventSubscriber] = [:]
        var nextID: UInt64 = 1
        var closed = false
    }

    private let clients = Mutex(Clients())
    private let clientCount = Atomic<Int>(0)
    private let droppedTotal = Atomic<Int>(0)

    init(bufferSize: Int = 1024, heartbeat: Duration = .seconds(15)) {
        self.bufferSize = max(1, bufferSize)
        self.heartbeat = heartbeat
    }

    /// Clients connected now.
    var connectedClients: Int { clientCount.load(ordering: .relaxed) }

    /// Events dropped for slow clients since the start.
    var droppedEvents: Int { droppedTotal.load(ordering: .relaxed) }

    // MARK: Publishing

    func publish(_ entries: [RequestLog.Entry]) {
        guard clientCount.load(ordering: .acquiring) > 0 else { return }
        for entry in entries {
            broadcast(ServerSentEvent(name: "request", data: entry.controlJSON(includingSequence: false)).bytes)
        }
    }

    /// The simulator's sink: each observation is one event.
    func record(_ observations: [Observation]) {
        guard clientCount.load(ordering: .acquiring) > 0 else { return }
        for observation in observations {
            broadcast(ServerSentEvent(name: "observation", data: observation.json).bytes)
        }
    }

    /// A run of queued pushes' observations, which comes all at once: sent as items of up to
    /// `eventsPerItem` events each, so that a client's stream takes (and its writer writes) a
    /// run in a few steps instead of one per event, and keeps up with a burst.
    func record(batches: [[Observation]]) {
        guard clientCount.load(ordering: .acquiring) > 0 else { return }
        var bytes: [UInt8] = []
        var count = 0
        for batch in batches {
            for observation in batch {
                bytes += ServerSentEvent(name: "observation", data: observation.json).bytes
                count += 1
                if count == Self.eventsPerItem {
                    broadcast(.events(bytes, count: count))
                    bytes = []
                    count = 0
                }
            }
        }
        if count > 0 { broadcast(.events(bytes, count: count)) }
    }

    /// Events in one item of a run; a full buffer holds `bufferSize` items.
    static let eventsPerItem = 16

    private func broadcast(_ bytes: [UInt8]) {
        broadcast(.event(bytes))
    }

    private func broadcast(_ item: EventSubscriber.Item) {
        for subscriber in clients.withLock({ Array($0.subscribers.values) }) {
            let dropped = subscriber.send(item)
            if dropped > 0 { droppedTotal.add(dropped, ordering: .relaxed) }
        }
    }

    // MARK: Clients

    /// A new client's stream of event text; `unsubscribe` when the client goes.
    func subscribe() -> EventSubscriber {
        let subscriber = clients.withLock { clients -> EventSubscriber in
            let subscriber = EventSubscriber(id: clients.nextID, bufferSize: bufferSize)
            clients.nextID += 1
            if clients.closed {
                subscriber.finish()
            } else {
                clients.subscribers[subscriber.id] = subscriber
                clientCount.add(1, ordering: .releasing)
                subscriber.startHeartbeat(every: heartbeat)
            }
            return subscriber
        }
        return subscriber
    }

    func unsubscribe(_ subscriber: EventSubscriber) {
        let removed = clients.withLock { $0.subscribers.removeValue(forKey: subscriber.id) }
        if removed != nil { clientCount.subtract(1, ordering: .releasing) }
        subscriber.finish()
    }

    /// Ends every stream and refuses new ones (the server is shutting down).
    func close() {
        let subscribers = clients.withLock { clients -> [EventSubscriber] in
            clients.closed = true
            defer { clients.subscribers = [:] }
            return Array(clients.subscribers.values)
        }
        clientCount.store(0, ordering: .releasing)
        for subscriber in subscribers { subscriber.finish() }
    }
}

/// One client of `/v1/events`: a bounded stream of text chunks, and a heartbeat while it lasts.
final class EventSubscriber: Sendable {
    enum Item: Sendable {
        case event([UInt8])
        /// Several events' text, one after the other.
        case events([UInt8], count: Int)
        case heartbeat
        case dropped(Int)

        /// How many events the item carries.
        var eventCount: Int {
            switch self {
            case .event: 1
            case .events(_, let count): count
            case .heartbeat, .dropped: 0
            }
        }

        var bytes: [UInt8] {
            switch self {
            case .event(let bytes), .events(let bytes, _): bytes
            case .heartbeat: Array(": keep-alive\n\n".utf8)
            case .dropped(let count):
                ServerSentEvent(name: "dropped", data: .object([
                    ("dropped", .number(Double(count))),
                    ("message", .string("This client read too slowly: \(count) event\(count == 1 ? " was" : "s were") dropped here")),
                ])).bytes
            }
        }
    }

    let id: UInt64
    let items: AsyncStream<Item>
    private let continuation: AsyncStream<Item>.Continuation
    /// Events dropped since the last notice; the lock also keeps a notice ahead of the item
    /// that follows it.
    private let pendingDrops = Mutex(0)
    private let heartbeatTask = Mutex<Task<Void, Never>?>(nil)

    init(id: UInt64, bufferSize: Int) {
        self.id = id
        (items, continuation) = AsyncStream<Item>.makeStream(bufferingPolicy: .bufferingOldest(bufferSize))
    }

    /// Sends a heartbeat every `interval` until `finish()`.
    func startHeartbeat(every interval: Duration) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                _ = self.send(.heartbeat)
            }
        }
        heartbeatTask.withLock { $0 = task }
    }

    /// Queues an item; how many events had to be dropped (the buffer is full). A notice of
    /// earlier drops goes first; a heartbeat that finds the buffer full is skipped uncounted.
    func send(_ item: Item) -> Int {
        pendingDrops.withLock { pending in
            let events = item.eventCount
            if pending > 0 {
                guard case .enqueued = continuation.yield(.dropped(pending)) else {
                    pending += events
                    return events
                }
                pending = 0
            }
            if case .dropped = continuation.yield(item) {
                pending += events
                return events
            }
            return 0
        }
    }

    func finish() {
        heartbeatTask.withLock { $0?.cancel() }
        continuation.finish()
    }
}

/// One server-sent event: `event: <name>` and one `data:` line of compact JSON.
struct ServerSentEvent {
    var name: String
    var data: JSONValue

    var bytes: [UInt8] {
        var writer = JSONWriter()
        writer.value(data)
        // Compact JSON has no newline (strings escape theirs), so one data line holds it.
        return Array("event: \(name)\ndata: ".utf8) + writer.bytes + Array("\n\n".utf8)
    }
}
