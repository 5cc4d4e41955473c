import PushlabCore

/// A third-party push SDK in an app: JPush's `JPUSHService` or GeTui's `GeTuiSdk`
/// (docs/SIMULATOR.md section 16). It starts at every launch, registers with its service the
/// first time, and keeps the service's own long connection while the app is on screen; the
/// service's custom messages (JPush) and transmissions (GeTui) travel over that connection.
/// The service itself is not simulated here: a `ThirdPartySDKConnector` hears the SDK's
/// events and hands back registrations and messages.
public struct ThirdPartySDK: Sendable, Codable, Equatable {
    public enum Service: String, Sendable, Codable, CaseIterable {
        case jpush
        case getui
    }

    public var service: Service
    /// JPush's appKey or GeTui's appId: the service's app the SDK is started with.
    public var appKey: String
    /// The registration id (JPush) or clientId (GeTui) the service gave; nil before the first
    /// registration succeeded.
    public var registrationID: String?
    /// The id the scenario asks the service to give at the first registration; nil: the
    /// service makes one.
    public var requestedID: String?
    /// Whether the service's connection is up.
    public var connected: Bool

    public init(service: Service, appKey: String, requestedID: String? = nil, registrationID: String? = nil, connected: Bool = false) {
        self.service = service
        self.appKey = appKey
        self.requestedID = requestedID
        self.registrationID = registrationID
        self.connected = connected
    }

    /// The SDK's delegate method the system's callback reaches instead of the app's own: the
    /// SDK makes itself the `UNUserNotificationCenter` delegate when the app registers through it
    /// (JPush's `registerForRemoteNotificationConfig:delegate:`, GeTui's
    /// `registerRemoteNotification:`) and forwards to its own protocol. nil: the native one runs.
    func replacement(for callback: AppCallback, api: NotificationAPI) -> AppCallback? {
        // The legacy API's `UIApplicationDelegate` callbacks are the app's own (taps among them).
        guard api == .userNotifications else { return nil }
        return switch (service, callback) {
        case (.jpush, .willPresent): .jpushWillPresent
        case (.jpush, .didReceiveResponse): .jpushDidReceiveResponse
        case (.getui, .willPresent): .getuiWillPresent
        case (.getui, .didReceiveResponse): .getuiDidReceiveNotification
        case (.getui, .didReceiveRemoteNotificationFetch): .getuiDidReceiveSilence
        default: nil
        }
    }
}

/// What an app's SDK tells its service, handed to the `ThirdPartySDKConnector` after the change
/// that caused it.
public struct ThirdPartySDKEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// The app launched (into the background too): the SDK starts, registering when it has
        /// no id, and uploads the device token; its connection comes up only on screen.
        case launched
        /// The app came on screen: the SDK logs in (registering first when it has no id) and
        /// its connection is up.
        case connected
        /// The app left the screen (background, terminated): the connection is down.
        case disconnected
    }

    public var kind: Kind
    public var deviceID: String
    public var bundleID: String
    public var service: ThirdPartySDK.Service
    public var appKey: String
    /// The id the SDK has, or nil before its first registration (`requestedID` then says which
    /// one the scenario wants).
    public var registrationID: String?
    public var requestedID: String?
    /// The app's APNs device token and its build's environment, which the SDK uploads.
    public var deviceToken: String
    public var environment: APNsEnvironment
}

/// A message of a service's own connection, for an app's SDK.
public struct ThirdPartySDKMessage: Sendable, Equatable {
    /// The message's id at its service: JPush's msg_id, GeTui's msgId.
    public var messageID: String
    /// The SDK callback's userInfo: JPush's `{content, title, content_type, extras, _j_msgid}`,
    /// GeTui's `{payload}`.
    public var userInfo: JSONValue
    /// GeTui's task id.
    public var taskID: String?
    /// Kept by the service while the app was not connected, and handed over at its next login.
    public var offline: Bool

    public init(messageID: String, userInfo: JSONValue, taskID: String? = nil, offline: Bool) {
        self.messageID = messageID
        self.userInfo = userInfo
        self.taskID = taskID
        self.offline = offline
    }
}

/// Who plays the services for the apps' SDKs (the runtime's service hub): it hears every
/// connect and disconnect, after the device's change, outside the simulator's locks, and may
/// call the simulator back (`registerSDK`, `deliverSDKMessage`).
public protocol ThirdPartySDKConnector: Sendable {
    func handle(_ events: [ThirdPartySDKEvent])
}
