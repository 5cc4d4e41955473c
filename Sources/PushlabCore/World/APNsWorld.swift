import Synchronization

/// What the APNs look-alike knows: signing keys, apps and device tokens. Safe to read from
/// every event loop and to change at run time (the control API and the simulator do).
public final class APNsWorld: Sendable {
    private struct Contents {
        var keys: [String: SigningKey] = [:]
        var apps: [String: AppRecord] = [:]
    }

    private let contents = Mutex(Contents())
    /// The apps' broadcast channels (Live Activities, A10).
    public let channels: BroadcastChannels
    /// A token and its rate-limit window side by side, so the request that looks the token up
    /// counts against its window without a second lookup. Shared by reference: a lookup costs
    /// one reference count on the token's own object, not one per string every token shares. A
    /// change makes a new one (with the same window); readers keep the one they found.
    final class Registration: Sendable {
        let record: DeviceTokenRecord
        let rateWindow: RateWindow

        init(record: DeviceTokenRecord, rateWindow: RateWindow = RateWindow()) {
            self.record = record
            self.rateWindow = rateWindow
        }

        /// Whether a push to `topic` may use this token (read in place: a copy of the record would
        /// retain each of its strings).
        func accepts(_ topic: APNsTopic) -> Bool {
            topic.bundleID == record.bundleID && record.kind.accepts(topic.suffixType)
        }
    }

    /// Read on every request from every event loop: sharded by token, so loops rarely meet.
    private let tokenShards: [LockedShard<[DeviceTokenKey: Registration]>] = (0..<16).map { _ in LockedShard([:]) }
    private let keyChanges = Atomic<UInt64>(0)
    private let appsAdded = Atomic<UInt64>(0)

    /// Grows with every app added at run time.
    public var appGeneration: UInt64 { appsAdded.load(ordering: .acquiring) }

    private let appChanges = Atomic<UInt64>(0)
    /// Changes whenever any app is added or replaced, so connections may cache app lookups.
    public var appsVersion: UInt64 { appChanges.load(ordering: .acquiring) }

    /// Changes whenever a key is added, replaced or removed, so connections can drop cached verifications.
    public var keyGeneration: UInt64 { keyChanges.load(ordering: .acquiring) }

    public init(keys: [SigningKey] = [], apps: [AppRecord] = [], tokens: [DeviceTokenRecord] = [], channels: [BroadcastChannel] = []) {
        self.channels = BroadcastChannels(channels)
        contents.withLock { contents in
            for key in keys { contents.keys[key.keyID] = key }
            for app in apps { contents.apps[app.bundleID] = app }
        }
        register(tokens)
    }

    private func shard(_ key: DeviceTokenKey) -> LockedShard<[DeviceTokenKey: Registration]> {
        tokenShards[key.shard(among: tokenShards.count)]
    }

    // MARK: Reads (the hot path)

    public func key(_ keyID: String) -> SigningKey? { contents.withLock { $0.keys[keyID] } }
    public func app(_ bundleID: String) -> AppRecord? { contents.withLock { $0.apps[bundleID] } }
    public func token(_ hex: String) -> DeviceTokenRecord? { token(DeviceTokenKey(hex)) }
    public func token(_ key: DeviceTokenKey) -> DeviceTokenRecord? { shard(key).withLock { $0[key]?.record } }
    func registration(_ key: DeviceTokenKey) -> Registration? { shard(key).withLock { $0[key] } }

    public var keys: [SigningKey] { contents.withLock { $0.keys.values.sorted { $0.keyID < $1.keyID } } }
    public var apps: [AppRecord] { contents.withLock { $0.apps.values.sorted { $0.bundleID < $1.bundleID } } }
    public var tokens: [DeviceTokenRecord] {
        tokenShards.flatMap { shard in shard.withLock { $0.values.map(\.record) } }.sorted { $0.token < $1.token }
    }
    public var tokenCount: Int { tokenShards.reduce(0) { count, shard in count + shard.withLock { $0.count } } }

    // MARK: Changes

    public func add(_ key: SigningKey) {
        contents.withLock { $0.keys[key.keyID] = key }
        keyChanges.add(1, ordering: .releasing)
    }

    public func removeKey(_ keyID: String) {
        _ = contents.withLock { $0.keys.removeValue(forKey: keyID) }
        keyChanges.add(1, ordering: .releasing)
    }
    public func add(_ app: AppRecord) {
        var added = app
        added.addedGeneration = appsAdded.add(1, ordering: .acquiringAndReleasing).newValue
        contents.withLock { $0.apps[app.bundleID] = added }
        appChanges.add(1, ordering: .releasing)
    }

    /// Adds or replaces a token; one registered again keeps its rate-limit window.
    public func register(_ token: DeviceTokenRecord) {
        let key = DeviceTokenKey(token.token)
        shard(key).withLock { Self.store(token, at: key, in: &$0) }
    }

    public func register(_ tokens: [DeviceTokenRecord]) {
        var byShard = [[(DeviceTokenKey, DeviceTokenRecord)]](repeating: [], count: tokenShards.count)
        for token in tokens {
            let key = DeviceTokenKey(token.token)
            byShard[key.shard(among: tokenShards.count)].append((key, token))
        }
        for (shard, entries) in zip(tokenShards, byShard) where !entries.isEmpty {
            shard.withLock { tokens in
                tokens.reserveCapacity(tokens.count + entries.count)
                for (key, token) in entries { Self.store(token, at: key, in: &tokens) }
            }
        }
    }

    private static func store(_ token: DeviceTokenRecord, at key: DeviceTokenKey, in tokens: inout [DeviceTokenKey: Registration]) {
        tokens[key] = Registration(record: token, rateWindow: tokens[key]?.rateWindow ?? RateWindow())
    }

    public func forget(token hex: String) {
        let key = DeviceTokenKey(hex)
        _ = shard(key).withLock { $0.removeValue(forKey: key) }
    }

    /// Marks a token `Unregistered` (uninstall, reinstall) from `time` on; false if unknown.
    @discardableResult
    public func unregister(token hex: String, at time: EpochMilliseconds) -> Bool {
        setState(.unregistered(since: time), of: hex)
    }

    /// Marks a token `ExpiredToken` from `time` on; false if unknown.
    @discardableResult
    public func expire(token hex: String, at time: EpochMilliseconds) -> Bool {
        setState(.expired(since: time), of: hex)
    }

    @discardableResult
    public func reactivate(token hex: String) -> Bool { setState(.active, of: hex) }

    /// Replaces everything (a scenario reset).
    public func replaceAll(keys: [SigningKey], apps: [AppRecord], tokens: [DeviceTokenRecord], channels: [BroadcastChannel] = []) {
        self.channels.replaceAll(channels)
        let fresh = APNsWorld(keys: keys, apps: apps, tokens: tokens)
        let replacement = fresh.contents.withLock { $0 }
        contents.withLock { $0 = replacement }
        for (shard, freshShard) in zip(tokenShards, fresh.tokenShards) {
            let replacement = freshShard.withLock { $0 }
            shard.withLock { $0 = replacement }
        }
        keyChanges.add(1, ordering: .releasing)
        appChanges.add(1, ordering: .releasing)
    }

    private func setState(_ state: DeviceTokenRecord.State, of hex: String) -> Bool {
        let key = DeviceTokenKey(hex)
        return shard(key).withLock { tokens in
            guard let registration = tokens[key] else { return false }
            var record = registration.record
            record.state = state
            tokens[key] = Registration(record: record, rateWindow: registration.rateWindow)
            return true
        }
    }
}
