import Synchronization

/// What the APNs look-alike knows: signing keys, apps and device tokens. Safe to read from
/// every event loop and to change at run time (the control API and the simulator do).
public final class APNsWorld: Sendable {
    private struct Contents {
        var keys: [String: SigningKey] = [:]
        var apps: [String: AppRecord] = [:]
        var tokens: [String: DeviceTokenRecord] = [:]
    }

    private let contents = Mutex(Contents())
    private let keyChanges = Atomic<UInt64>(0)
    private let appsAdded = Atomic<UInt64>(0)

    /// Grows with every app added at run time.
    public var appGeneration: UInt64 { appsAdded.load(ordering: .acquiring) }

    private let appChanges = Atomic<UInt64>(0)
    /// Changes whenever any app is added or replaced, so connections may cache app lookups.
    public var appsVersion: UInt64 { appChanges.load(ordering: .acquiring) }

    /// Changes whenever a key is added, replaced or removed, so connections can drop cached verifications.
    public var keyGeneration: UInt64 { keyChanges.load(ordering: .acquiring) }

    public init(keys: [SigningKey] = [], apps: [AppRecord] = [], tokens: [DeviceTokenRecord] = []) {
        contents.withLock { contents in
            for key in keys { contents.keys[key.keyID] = key }
            for app in apps { contents.apps[app.bundleID] = app }
            for token in tokens { contents.tokens[token.token] = token }
        }
    }

    // MARK: Reads (the hot path)

    public func key(_ keyID: String) -> SigningKey? { contents.withLock { $0.keys[keyID] } }
    public func app(_ bundleID: String) -> AppRecord? { contents.withLock { $0.apps[bundleID] } }
    public func token(_ hex: String) -> DeviceTokenRecord? { contents.withLock { $0.tokens[hex] } }

    public var keys: [SigningKey] { contents.withLock { $0.keys.values.sorted { $0.keyID < $1.keyID } } }
    public var apps: [AppRecord] { contents.withLock { $0.apps.values.sorted { $0.bundleID < $1.bundleID } } }
    public var tokens: [DeviceTokenRecord] { contents.withLock { $0.tokens.values.sorted { $0.token < $1.token } } }
    public var tokenCount: Int { contents.withLock { $0.tokens.count } }

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
    public func register(_ token: DeviceTokenRecord) { contents.withLock { $0.tokens[token.token] = token } }

    public func register(_ tokens: [DeviceTokenRecord]) {
        contents.withLock { contents in
            contents.tokens.reserveCapacity(contents.tokens.count + tokens.count)
            for token in tokens { contents.tokens[token.token] = token }
        }
    }

    public func forget(token hex: String) { _ = contents.withLock { $0.tokens.removeValue(forKey: hex.lowercased()) } }

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
    public func replaceAll(keys: [SigningKey], apps: [AppRecord], tokens: [DeviceTokenRecord]) {
        let fresh = APNsWorld(keys: keys, apps: apps, tokens: tokens)
        let replacement = fresh.contents.withLock { $0 }
        contents.withLock { $0 = replacement }
        keyChanges.add(1, ordering: .releasing)
        appChanges.add(1, ordering: .releasing)
    }

    private func setState(_ state: DeviceTokenRecord.State, of hex: String) -> Bool {
        contents.withLock { contents in
            let key = hex.lowercased()
            guard contents.tokens[key] != nil else { return false }
            contents.tokens[key]!.state = state
            return true
        }
    }
}
