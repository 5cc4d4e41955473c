import Synchronization

/// A `Mutex` in a class, so shards can live in an array (a `Mutex` cannot be copied).
final class LockedShard<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<Result: Sendable>(_ body: (inout sending Value) -> sending Result) -> Result {
        mutex.withLock(body)
    }
}
