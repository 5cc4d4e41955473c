import PushlabCore

/// What happened to a Live Activity, or to an ActivityKit push that did not reach one.
public struct LiveActivityChange: Sendable, Equatable {
    public enum Event: String, Sendable, Codable, CaseIterable {
        /// A push-to-start push or the app started it.
        case started
        /// Its content state changed (push, broadcast or the app).
        case updated
        /// An ActivityKit push the system did not apply; `reason` says why.
        case ignored
        /// A priority-10 update over the hourly budget: dropped silently.
        case throttled
        /// Its `stale-date` passed.
        case stale
        case ended
        /// It left the Lock Screen.
        case dismissed
    }

    public var event: Event
    /// nil when the push never reached an activity (e.g. a start that was ignored).
    public var activityID: String?
    /// The activity's state after the change.
    public var state: LiveActivity.State?
    public var reason: LiveActivityReason?
    /// The content state shown after a start or an update.
    public var contentState: JSONValue?
    public var message: String?

    public init(_ event: Event, activityID: String?, state: LiveActivity.State?, reason: LiveActivityReason? = nil, contentState: JSONValue? = nil, message: String? = nil) {
        self.event = event
        self.activityID = activityID
        self.state = state
        self.reason = reason
        self.contentState = contentState
        self.message = message
    }
}

/// Why an ActivityKit push was ignored or throttled, or how an activity ended or left the screen.
public enum LiveActivityReason: String, Sendable, Codable, CaseIterable {
    // Ignored pushes.
    /// The app lacks `NSSupportsLiveActivities`.
    case notSupported
    /// The user turned Live Activities off for the app.
    case disabledByUser
    /// An event other than `start` sent to a push-to-start token.
    case notStartEvent
    /// `start` sent to an activity's own token.
    case startToActivityToken
    /// A `start` without `alert`, `attributes-type`, `attributes` or `content-state`.
    case missingStartFields
    /// `attributes-type` names no `ActivityAttributes` type of the app.
    case unknownAttributesType
    /// The app already has as many activities as the system allows (`targetMaximumExceeded`).
    case tooManyActivities
    /// Over the push-to-start budget.
    case pushToStartBudget
    /// The user force-quit the app: push-to-start waits until it is opened again.
    case appForceQuit
    /// No `event`, or one that is not start, update or end.
    case unknownEvent
    /// An update without `content-state`.
    case missingContentState
    /// `timestamp` is not newer than the content shown.
    case olderTimestamp
    /// The activity already ended.
    case activityEnded
    /// A token of the app that belongs to no activity (or a regular device token).
    case notAnActivityToken
    // Throttled.
    case budgetExhausted
    // Ended.
    /// An `end` event (push or broadcast).
    case endEvent
    /// The app ended it (`Activity.end`).
    case endedByApp
    /// Eight hours active: the system ends it.
    case maximumDuration
    // Dismissed.
    /// The `dismissal-date` came (or was in the past).
    case dismissalDate
    /// Four hours after it ended, the system removes it.
    case lockScreenLimit
    /// The app was uninstalled.
    case appUninstalled
}
