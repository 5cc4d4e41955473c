import Synchronization

/// Which world a cluster's data keys are of: "0" until the first reset or scenario load, then
/// that change's id (`WorldChanges`). Shared by every user of one node's `EngineKeys`, so that
/// the intake, the delivery and the history go to the new world at one moment.
public final class WorldGeneration: Sendable {
    private let current: Mutex<String>

    public init(_ id: String = "0") {
        current = Mutex(id)
    }

    public var id: String { current.withLock { $0 } }

    func set(_ id: String) {
        current.withLock { $0 = id }
    }
}
