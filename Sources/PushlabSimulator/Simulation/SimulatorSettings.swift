import PushlabCore

/// The simulator's tunable rules; defaults follow Apple's documentation (reference 2.3, 5).
public struct SimulatorSettings: Sendable, Equatable {
    /// Background pushes an app may receive in any 60 minutes. Apple: "no more than two or three
    /// per hour". 0 means no limit.
    public var backgroundPushesPerHour: Int = 3
    /// Background pushes an app may receive in any 24 hours: the daily power budget. Apple gives
    /// no number; 48 is Pushlab's choice. 0 means no limit.
    public var backgroundPushesPerDay: Int = 48
    /// How long APNs stores a notification for an offline device when `apns-expiration` is absent
    /// (Apple: a time-to-live of 30 days).
    public var storageMilliseconds: EpochMilliseconds = 30 * 86_400_000
    /// Entries Notification Center keeps per app; the oldest leaves first. Apple documents no
    /// limit; an unbounded list would let a load test grow memory without end.
    public var notificationCenterLimit: Int = 64

    public init() {}

    public var problem: String? {
        if backgroundPushesPerHour < 0 { return "backgroundPushesPerHour must be 0 or more" }
        if backgroundPushesPerDay < 0 { return "backgroundPushesPerDay must be 0 or more" }
        if storageMilliseconds < 0 { return "storageSeconds must be 0 or more" }
        if notificationCenterLimit < 1 { return "notificationCenterLimit must be at least 1" }
        return nil
    }
}
