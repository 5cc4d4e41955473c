import PushlabCore

/// One Live Activity on a device (ActivityKit's `Activity`), as the system keeps it.
public struct LiveActivity: Sendable, Codable, Equatable {
    /// ActivityKit's `ActivityState` (`pending`, iOS 26's scheduled start, is not simulated).
    public enum State: String, Sendable, Codable, CaseIterable {
        case active, stale, ended, dismissed
    }

    /// Who started it: the app (`Activity.request`) or a push-to-start push.
    public enum Origin: String, Sendable, Codable, CaseIterable {
        case app, push
    }

    /// Upper-case UUID, as `Activity.id`.
    public var id: String
    public var attributesType: String
    public var attributes: JSONValue
    public var contentState: JSONValue
    /// When `activityState` becomes `stale` unless an update moves it.
    public var staleDate: EpochMilliseconds?
    public var relevanceScore: Double?
    public var state: State
    public var origin: Origin
    /// Its own push token (`pushType: .token`); nil for none or a channel.
    public var pushToken: String?
    /// The broadcast channel it listens to (`pushType: .channel(id)`).
    public var channelID: String?
    public var startedAt: EpochMilliseconds
    /// The newest payload `timestamp` applied (epoch milliseconds): older ones are ignored.
    public var contentTimestamp: EpochMilliseconds?
    public var endedAt: EpochMilliseconds?
    /// When an ended activity leaves the Lock Screen (becomes `dismissed`).
    public var dismissAt: EpochMilliseconds?
    /// Why it will leave then: its `dismissal-date`, or the linger limit.
    public var dismissReason: LiveActivityReason?

    public init(
        id: String, attributesType: String, attributes: JSONValue, contentState: JSONValue, staleDate: EpochMilliseconds? = nil,
        relevanceScore: Double? = nil, state: State = .active, origin: Origin, pushToken: String? = nil, channelID: String? = nil,
        startedAt: EpochMilliseconds, contentTimestamp: EpochMilliseconds? = nil
    ) {
        self.id = id
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.state = state
        self.origin = origin
        self.pushToken = pushToken
        self.channelID = channelID
        self.startedAt = startedAt
        self.contentTimestamp = contentTimestamp
    }

    /// `startedAt` of an activity written in a scenario, until the device it is on is added.
    public static let notYetStarted: EpochMilliseconds = .min

    /// An upper-case UUID made of the first 32 digits of `hex`, as `Activity.id` looks.
    static func makeID(hex: String) -> String {
        let digits = Array(hex.prefix(32).uppercased())
        return [digits[0..<8], digits[8..<12], digits[12..<16], digits[16..<20], digits[20..<32]].map { String($0) }.joined(separator: "-")
    }

    /// Still on screen and taking updates (ActivityKit ignores pushes to an ended activity).
    public var isLive: Bool { state == .active || state == .stale }
}

/// An app's Live Activities side: its Info.plist keys, the user's switches, its push-to-start
/// token and the activities it has. Absent on an app without `NSSupportsLiveActivities`.
public struct LiveActivitySupport: Sendable, Codable, Equatable {
    /// Settings › the app › Live Activities (`ActivityAuthorizationInfo.areActivitiesEnabled`).
    public var enabled: Bool
    /// `NSSupportsLiveActivitiesFrequentUpdates` in the app's Info.plist.
    public var frequentUpdates: Bool
    /// The user's "More Frequent Updates" switch (on by default when the key is present).
    public var frequentUpdatesEnabled: Bool
    /// `Activity<Attributes>.pushToStartToken` (iOS 17.2+); nil before 17.2.
    public var pushToStartToken: String?
    /// The `ActivityAttributes` types the app defines; empty accepts any `attributes-type`.
    public var attributesTypes: [String]
    public var activities: [LiveActivity]
    /// When priority-10 ActivityKit pushes were applied, for the hourly budget.
    public var updateDeliveries: [EpochMilliseconds]
    /// When push-to-start pushes started activities, for the push-to-start budget.
    public var startDeliveries: [EpochMilliseconds]
    /// The newest broadcast stored per channel for a device that is offline (policy 1).
    public var storedBroadcasts: [StoredBroadcast]
    /// The app has seen `pushToStartTokenUpdates` yield its token since it was installed.
    public var pushToStartTokenAnnounced: Bool

    public init(
        enabled: Bool = true, frequentUpdates: Bool = false, frequentUpdatesEnabled: Bool = true, pushToStartToken: String? = nil,
        attributesTypes: [String] = [], activities: [LiveActivity] = []
    ) {
        self.enabled = enabled
        self.frequentUpdates = frequentUpdates
        self.frequentUpdatesEnabled = frequentUpdatesEnabled
        self.pushToStartToken = pushToStartToken
        self.attributesTypes = attributesTypes
        self.activities = activities
        updateDeliveries = []
        startDeliveries = []
        storedBroadcasts = []
        pushToStartTokenAnnounced = false
    }

    /// Whether the larger budget applies: the key and the user's switch.
    public var hasFrequentUpdates: Bool { frequentUpdates && frequentUpdatesEnabled }

    func activityIndex(token: String) -> Int? { activities.firstIndex { $0.pushToken == token } }

    func activityIndex(id: String) -> Int? { activities.firstIndex { $0.id == id } }

    func owns(token: String) -> Bool { pushToStartToken == token || activityIndex(token: token) != nil }
}

/// A broadcast APNs keeps for an offline device on a most-recent-message channel.
public struct StoredBroadcast: Sendable, Codable, Equatable {
    public var channelID: String
    public var push: PendingPush
}
