import NIOCore
import PushlabCore
import Synchronization

/// The live connections of a server, so that settings can change and GOAWAY can be sent on
/// every one of them from outside their event loops.
public final class ConnectionRegistry: Sendable {
    private struct Entry: @unchecked Sendable {
        // Only touched on `channel.eventLoop` (see `onEach`).
        let handler: APNsHTTP2Handler
        let channel: Channel
    }

    private let entries = Mutex<[UInt64: Entry]>([:])
    private let nextID = Atomic<UInt64>(1)

    public init() {}

    public func makeConnectionID() -> UInt64 {
        nextID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    public var count: Int { entries.withLock { $0.count } }

    func add(_ id: UInt64, handler: APNsHTTP2Handler, channel: Channel) {
        entries.withLock { $0[id] = Entry(handler: handler, channel: channel) }
    }

    func remove(_ id: UInt64) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    /// Announces a new MAX_CONCURRENT_STREAMS on every live connection.
    public func setMaxConcurrentStreams(_ value: UInt32) {
        onEach { $0.setMaxConcurrentStreams(value) }
    }

    /// Sends GOAWAY `{"reason":…}` on every live connection; each closes when its streams finish.
    public func goAwayAll(_ reason: APNsErrorReason) {
        onEach { $0.goAway(reason) }
    }

    /// Closes every live connection now.
    public func closeAll() {
        let channels = entries.withLock { $0.values.map(\.channel) }
        for channel in channels { channel.close(promise: nil) }
    }

    private func onEach(_ body: @escaping @Sendable (APNsHTTP2Handler) -> Void) {
        let snapshot = entries.withLock { Array($0.values) }
        for entry in snapshot {
            entry.channel.eventLoop.execute { body(entry.handler) }
        }
    }
}
