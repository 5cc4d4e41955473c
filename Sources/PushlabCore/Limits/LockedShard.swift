import Synchronization

/// A `Mutex` in a class, so shards can live in an array (a `Mutex` cannot be copied).
public final class LockedShard<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) {
        mutex = Mutex(value)
    }

    public func withLock<Result: Sendable, Failure: Error>(_ body: (inout sending Value) throws(Failure) -> sending Result) throws(Failure) -> Result {
        try mutex.withLock(body)
    }
}
