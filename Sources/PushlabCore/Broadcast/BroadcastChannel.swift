/// A broadcast channel an app created through the channel management API (A10): Live
/// Activities subscribed to it receive what is broadcast on it.
public struct BroadcastChannel: Sendable, Equatable {
    /// `message-storage-policy`: whether APNs keeps the newest broadcast for devices that were
    /// offline (A10).
    public enum StoragePolicy: Int, Sendable, Codable, CaseIterable {
        /// Nothing is stored: an offline device never gets it; `apns-expiration` must be 0 (A11).
        case noStorage = 0
        /// The most recent broadcast is kept (at most 8 hours) and delivered on reconnection.
        case mostRecent = 1
    }

    /// Base64, as APNs issues it in `apns-channel-id`.
    public var id: String
    public var bundleID: String
    public var environment: APNsEnvironment
    public var storagePolicy: StoragePolicy
    public var createdAt: EpochMilliseconds

    public init(id: String, bundleID: String, environment: APNsEnvironment, storagePolicy: StoragePolicy, createdAt: EpochMilliseconds) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
    }
}
