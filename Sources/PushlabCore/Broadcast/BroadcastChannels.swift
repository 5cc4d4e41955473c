import Synchronization

/// Every broadcast channel, per environment (channels are specific to one, A10). Safe from any
/// thread: the channel API creates and deletes, the broadcast path and the simulator read.
public final class BroadcastChannels: Sendable {
    public enum CreationFailure: Error, Sendable, Equatable {
        /// The app already has `limit` channels in this environment (`CannotCreateChannelConfig`).
        case limitReached(limit: Int)
    }

    private struct Key: Hashable {
        var environment: APNsEnvironment
        var id: String
    }

    private let channels = Mutex<[Key: BroadcastChannel]>([:])
    private let ids = Mutex(APNsIDGenerator())

    public init(_ channels: [BroadcastChannel] = []) {
        replaceAll(channels)
    }

    /// A new channel with a fresh id: 16 random bytes in base64, like the ids APNs hands out.
    public func create(
        bundleID: String, environment: APNsEnvironment, storagePolicy: BroadcastChannel.StoragePolicy,
        at time: EpochMilliseconds, limit: Int
    ) throws(CreationFailure) -> BroadcastChannel {
        let id = ids.withLock { generator in Base64.encode(generator.randomBytes(16)) }
        let channel = BroadcastChannel(id: id, bundleID: bundleID, environment: environment, storagePolicy: storagePolicy, createdAt: time)
        let added: Bool = channels.withLock { channels in
            let count = channels.values.reduce(0) { $0 + ($1.bundleID == bundleID && $1.environment == environment ? 1 : 0) }
            guard count < limit else { return false }
            channels[Key(environment: environment, id: id)] = channel
            return true
        }
        guard added else { throw .limitReached(limit: limit) }
        return channel
    }

    /// Adds a channel as given (a scenario file, a store); replaces one with the same id.
    public func add(_ channel: BroadcastChannel) {
        channels.withLock { $0[Key(environment: channel.environment, id: channel.id)] = channel }
    }

    public func channel(_ id: String, environment: APNsEnvironment) -> BroadcastChannel? {
        channels.withLock { $0[Key(environment: environment, id: id)] }
    }

    @discardableResult
    public func delete(_ id: String, environment: APNsEnvironment) -> BroadcastChannel? {
        channels.withLock { $0.removeValue(forKey: Key(environment: environment, id: id)) }
    }

    /// An app's channels in one environment, oldest first.
    public func list(bundleID: String, environment: APNsEnvironment) -> [BroadcastChannel] {
        channels.withLock { $0.values.filter { $0.bundleID == bundleID && $0.environment == environment } }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    public var all: [BroadcastChannel] {
        channels.withLock { Array($0.values) }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    public func replaceAll(_ replacement: [BroadcastChannel]) {
        var fresh: [Key: BroadcastChannel] = [:]
        for channel in replacement { fresh[Key(environment: channel.environment, id: channel.id)] = channel }
        channels.withLock { $0 = fresh }
    }
}
