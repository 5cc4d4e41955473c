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
    /// How long a Live Activity may be active before the system ends it (Apple: eight hours).
    public var liveActivityMaximumActiveMilliseconds: EpochMilliseconds = 8 * 3_600_000
    /// How long an ended Live Activity stays on the Lock Screen at most (Apple: four hours).
    public var liveActivityLingerMilliseconds: EpochMilliseconds = 4 * 3_600_000
    /// Live Activities one app may have at once (`targetMaximumExceeded`); Apple gives no number,
    /// developers report five.
    public var liveActivitiesPerApp: Int = 5
    /// Priority-10 ActivityKit pushes an app's activities may receive in any 60 minutes. Apple
    /// documents an hourly budget without a number; developers report about 15. 0: no limit.
    public var liveActivityUpdatesPerHour: Int = 15
    /// The same with `NSSupportsLiveActivitiesFrequentUpdates` and the user's switch on
    /// (Pushlab's choice: Apple says only "higher"). 0: no limit.
    public var liveActivityFrequentUpdatesPerHour: Int = 120
    /// Push-to-start pushes that may start activities in any 60 minutes (about 10, Apple staff
    /// on the developer forums). 0: no limit.
    public var pushToStartPerHour: Int = 10
    /// VoIP pushes an app may leave unreported before iOS stops delivering them (developers
    /// report about four; Apple gives no number). 0: never stops.
    public var voipFailuresBeforeStop: Int = 4
    /// How long a Notification Service Extension may run before `serviceExtensionTimeWillExpire`
    /// (developers observe about 30 seconds; Apple says "a limited amount of time").
    public var serviceExtensionSeconds: Double = 30
    /// Widget reloads by push in any 24 hours (Apple: a frequently viewed widget gets 40 to 70
    /// refreshes a day). 0: no limit.
    public var widgetReloadsPerDay: Int = 50
    /// Complication pushes a day (Apple: 50). 0: no limit.
    public var complicationPushesPerDay: Int = 50
    /// How long an app woken in the background (a silent push, a background action) may run its
    /// request to its backend before iOS suspends it (Apple: about 30 seconds).
    public var providerBackgroundSeconds: Double = 30
    /// How long APNs keeps the newest broadcast of a most-recent-message channel for an offline
    /// device (Apple: at most eight hours).
    public var broadcastStorageMilliseconds: EpochMilliseconds = 8 * 3_600_000

    public init() {}

    public var problem: String? {
        if backgroundPushesPerHour < 0 { return "backgroundPushesPerHour must be 0 or more" }
        if backgroundPushesPerDay < 0 { return "backgroundPushesPerDay must be 0 or more" }
        if storageMilliseconds < 0 { return "storageSeconds must be 0 or more" }
        if notificationCenterLimit < 1 { return "notificationCenterLimit must be at least 1" }
        if liveActivityMaximumActiveMilliseconds < 1 { return "liveActivityMaxActiveSeconds must be more than 0" }
        if liveActivityLingerMilliseconds < 0 { return "liveActivityLingerSeconds must be 0 or more" }
        if liveActivitiesPerApp < 1 { return "liveActivitiesPerApp must be at least 1" }
        if liveActivityUpdatesPerHour < 0 { return "liveActivityUpdatesPerHour must be 0 or more" }
        if liveActivityFrequentUpdatesPerHour < 0 { return "liveActivityFrequentUpdatesPerHour must be 0 or more" }
        if pushToStartPerHour < 0 { return "pushToStartPerHour must be 0 or more" }
        if voipFailuresBeforeStop < 0 { return "voipFailuresBeforeStop must be 0 or more" }
        if !(serviceExtensionSeconds > 0 && serviceExtensionSeconds <= 3600) { return "serviceExtensionSeconds must be more than 0 and at most 3600" }
        if !(providerBackgroundSeconds > 0 && providerBackgroundSeconds <= 3600) { return "providerBackgroundSeconds must be more than 0 and at most 3600" }
        if widgetReloadsPerDay < 0 { return "widgetReloadsPerDay must be 0 or more" }
        if complicationPushesPerDay < 0 { return "complicationPushesPerDay must be 0 or more" }
        if broadcastStorageMilliseconds < 0 { return "broadcastStorageSeconds must be 0 or more" }
        return nil
    }
}
