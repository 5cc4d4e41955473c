import PushlabCore

/// One thing a device observed, in the order it happened on that device.
public struct Observation: Sendable, Equatable {
    /// Grows across all devices; a device's observations are in sequence order.
    public var sequence: Int64
    /// Simulated time.
    public var time: EpochMilliseconds
    public var deviceID: String
    public var bundleID: String
    /// The apns-id, or the local notification's identifier; nil for app-state changes.
    public var notificationID: String? {
        get { notificationIDValue?.text }
        set { notificationIDValue = newValue.map(APNsID.init) }
    }
    /// `notificationID` as the push carried it: an apns-id stays 128 bits from the request to the
    /// store, which wrote each push's records from a string it had to scan back into a UUID.
    public var notificationIDValue: APNsID?
    public var event: ObservationEvent
    /// A Notification Center removal's entry's `deliveredAt`: with the device, app and
    /// identifier, the key by which a store's log matches the removal to the entry it removes
    /// (another delivery with the same identifier stays). Not part of the observation's JSON or
    /// of its equality: what a store reads back has none.
    package var removedEntryDeliveredAt: EpochMilliseconds?
    /// The push this observation is about was accepted before a restart (a crash, or `kill -9`)
    /// and taken by its phone after it, from the log of accepted pushes.
    public var afterRestart = false

    public init(sequence: Int64, time: EpochMilliseconds, deviceID: String, bundleID: String, notificationID: String?, event: ObservationEvent) {
        self.init(sequence: sequence, time: time, deviceID: deviceID, bundleID: bundleID, notificationIDValue: notificationID.map(APNsID.init), event: event)
    }

    public init(sequence: Int64, time: EpochMilliseconds, deviceID: String, bundleID: String, notificationIDValue: APNsID?, event: ObservationEvent) {
        self.sequence = sequence
        self.time = time
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.notificationIDValue = notificationIDValue
        self.event = event
    }

    /// Inlinable: a sink that counts kinds reads the event's case where the observation lies,
    /// instead of copying the observation to call across modules.
    @inlinable public var kind: ObservationKind { event.kind }

    /// Every field but `removedEntryDeliveredAt`.
    public static func == (left: Observation, right: Observation) -> Bool {
        left.sequence == right.sequence && left.time == right.time && left.deviceID == right.deviceID
            && left.bundleID == right.bundleID && left.notificationIDValue == right.notificationIDValue && left.event == right.event
            && left.afterRestart == right.afterRestart
    }
}

public enum ObservationKind: String, Sendable, Codable, CaseIterable {
    case stored, delivered, discarded, throttled, dropped, banner, sound, badge, notificationCenter, callback, appState, liveActivity, system, providerRequest
}

/// Why a notification never reached the app or the screen.
public enum DropReason: String, Sendable, Codable, CaseIterable {
    /// The user force-quit the app: silent pushes do not wake it.
    case forceQuit
    /// The app lacks the `remote-notification` background mode.
    case noBackgroundMode
    /// Nothing may be shown: authorization denied or not determined (or the kind is off).
    case notAuthorized
    /// A background push sent with priority 10: APNs accepts it, the device never gets it.
    case backgroundPriority10
    /// The payload is not a JSON object, so the device cannot read it.
    case unreadablePayload
    /// No longer recorded (every push type is simulated); read back from older stores.
    case pushTypeNotSimulated
    /// The app has no part for this push type (no PushKit VoIP, no location push extension, …),
    /// or the push went to a token of another kind.
    case serviceNotSetUp
    /// iOS stopped delivering VoIP pushes to an app that did not report calls.
    case voipDeliveryStopped
    /// A location push without "Always" location authorization.
    case locationNotAlwaysAuthorized
    /// The app lacks the entitlement the push type needs.
    case missingEntitlement
    /// A Push to Talk push while the user is in no channel: the ephemeral token is inactive.
    case notInChannel
    /// Over WidgetKit's daily reload budget.
    case widgetReloadBudget
    /// The complication is not on the watch's active face.
    case complicationNotOnWatchFace
    /// Over the complication's 50 pushes a day.
    case complicationBudget
    /// An MDM push whose `mdm` value is not the device's PushMagic.
    case pushMagicMismatch
}

/// Why APNs or the device threw a held notification away.
public enum DiscardReason: String, Sendable, Codable, CaseIterable {
    /// Its `apns-expiration` passed (or APNs's 30-day storage ended) before delivery.
    case expired
    /// A newer notification for the same app replaced it.
    case replaced
    /// `apns-expiration: 0` and the device was not reachable: delivered once or never.
    case deliverOnce
    /// The app was uninstalled or reinstalled while it was held.
    case appUninstalled
}

/// Why the system holds a notification back instead of delivering it now.
public enum ThrottleReason: String, Sendable, Codable, CaseIterable {
    /// The app's background-push budget is used up; it is delivered when budget returns.
    case budgetExhausted
    /// Low power mode holds background pushes and delays priority 5 and 1 pushes.
    case lowPowerMode
}

public enum NotificationCenterChange: String, Sendable, Codable, CaseIterable {
    case added, removed
}

/// Why an entry left Notification Center.
public enum RemovalReason: String, Sendable, Codable, CaseIterable {
    case tapped, actionTapped, dismissed, clearedAll, collapsed, appUninstalled
    /// Over `notificationCenterLimit`: the oldest entry leaves.
    case limit
}

/// The arguments a callback received.
public struct CallbackArguments: Sendable, Equatable {
    public var userInfo: JSONValue?
    public var launchOptions: JSONValue?
    public var actionIdentifier: String?
    public var typedText: String?
    /// The legacy `withResponseInfo:` dictionary.
    public var responseInfo: JSONValue?
    public var deviceToken: String?
    /// `didReceiveNotificationResponse`'s trigger: `push` or the local trigger's kind.
    public var trigger: String?
    /// ActivityKit sequences: the activity, its state and its content state.
    public var activityID: String?
    public var activityState: String?
    public var contentState: JSONValue?
    /// A third-party SDK's own arguments: a registration's id or error code, a message's
    /// `fromGetui`, `offLine`, `taskId` and `msgId`.
    public var sdk: JSONValue?

    public init(userInfo: JSONValue? = nil, launchOptions: JSONValue? = nil, actionIdentifier: String? = nil, typedText: String? = nil, responseInfo: JSONValue? = nil, deviceToken: String? = nil, trigger: String? = nil, activityID: String? = nil, activityState: String? = nil, contentState: JSONValue? = nil, sdk: JSONValue? = nil) {
        self.sdk = sdk
        self.userInfo = userInfo
        self.launchOptions = launchOptions
        self.actionIdentifier = actionIdentifier
        self.typedText = typedText
        self.responseInfo = responseInfo
        self.deviceToken = deviceToken
        self.trigger = trigger
        self.activityID = activityID
        self.activityState = activityState
        self.contentState = contentState
    }
}

public enum ObservationEvent: Sendable, Equatable {
    /// APNs holds it for an offline device; `replacing` is the stored one it displaced.
    case stored(expiresAt: EpochMilliseconds, replacing: String?)
    case delivered(pushType: String, priority: Int)
    case discarded(DiscardReason, replacedBy: String?)
    case throttled(ThrottleReason, until: EpochMilliseconds?)
    case dropped(DropReason, message: String?)
    case banner(title: String?, subtitle: String?, body: String?, actions: [String])
    case sound(String)
    case badge(Int)
    /// `entry` is what was added (nil for a removal): the store keeps Notification Center from it.
    case notificationCenter(NotificationCenterChange, reason: RemovalReason?, entry: DeliveredNotification? = nil)
    // The three largest payloads live in a box of their own: inline, the largest (a callback's
    // arguments) made every observation 280 bytes, copied and moved at each step from the phone
    // to the store; banners, sounds and badges, which every alert push observes, stay inline.
    indirect case callback(AppCallback, appState: AppState, arguments: CallbackArguments)
    case appState(from: AppState, to: AppState)
    indirect case liveActivity(LiveActivityChange)
    case system(SystemEvent)
    /// An app's request to its provider's backend, once it is answered (or fails).
    indirect case providerRequest(ProviderResponse)

    @inlinable public var kind: ObservationKind {
        switch self {
        case .stored: .stored
        case .delivered: .delivered
        case .discarded: .discarded
        case .throttled: .throttled
        case .dropped: .dropped
        case .banner: .banner
        case .sound: .sound
        case .badge: .badge
        case .notificationCenter: .notificationCenter
        case .callback: .callback
        case .appState: .appState
        case .liveActivity: .liveActivity
        case .system: .system
        case .providerRequest: .providerRequest
        }
    }
}
