import PushlabCore

/// One app on one simulated device, with everything the device remembers about it.
public struct AppInstall: Sendable, Codable, Equatable {
    public var bundleID: String
    /// How the build was signed: its token works only on the matching APNs host.
    public var environment: APNsEnvironment
    /// 64 lower-case hex digits; a reinstall replaces it.
    public var deviceToken: String
    public var api: NotificationAPI
    /// Callbacks the app implements; one it lacks is never observed.
    public var implements: Set<AppCallback>
    public var authorization: NotificationAuthorization
    /// Whether `remote-notification` is among its background modes (silent pushes wake it).
    public var remoteNotificationBackgroundMode: Bool
    public var categories: [NotificationCategory]
    public var willPresentOptions: PresentationOptions
    /// Whether `mutable-content: 1` goes through a Notification Service Extension.
    public var serviceExtension: Bool
    public var state: AppState
    /// Who ended the app when it is not running.
    public var terminatedBy: Termination
    public var badge: Int
    /// Delivered notifications not yet opened or cleared, oldest first.
    public var notificationCenter: [DeliveredNotification]
    public var pendingLocal: [LocalNotification]

    // What APNs and the system hold back for this app.
    /// The one notification APNs stores while the device is offline.
    public var storedWhileOffline: PendingPush?
    /// The newest background push held over budget or in low power mode.
    public var heldBackground: PendingPush?
    /// Priority 5 and 1 pushes held back while the device is in low power mode.
    public var heldLowPriority: [PendingPush]
    /// When background pushes were delivered, for the budget's windows (the last day's).
    public var backgroundDeliveries: [EpochMilliseconds]
    /// The app has been told its device token since it was (re)installed.
    public var tokenAnnounced: Bool

    public init(
        bundleID: String, environment: APNsEnvironment = .development, deviceToken: String,
        api: NotificationAPI = .userNotifications, implements: Set<AppCallback>? = nil,
        authorization: NotificationAuthorization = .authorized, remoteNotificationBackgroundMode: Bool = true,
        categories: [NotificationCategory] = [], willPresentOptions: PresentationOptions = [],
        serviceExtension: Bool = false, state: AppState = .notRunning, terminatedBy: Termination = .system, badge: Int = 0
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.deviceToken = deviceToken.lowercased()
        self.api = api
        self.implements = implements ?? AppCallback.all(for: api)
        self.authorization = authorization
        self.remoteNotificationBackgroundMode = remoteNotificationBackgroundMode
        self.categories = categories
        self.willPresentOptions = willPresentOptions
        self.serviceExtension = serviceExtension
        self.state = state
        self.terminatedBy = terminatedBy
        self.badge = badge
        notificationCenter = []
        pendingLocal = []
        storedWhileOffline = nil
        heldBackground = nil
        heldLowPriority = []
        backgroundDeliveries = []
        tokenAnnounced = false
    }

    func category(_ identifier: String?) -> NotificationCategory? {
        guard let identifier else { return nil }
        return categories.first { $0.identifier == identifier }
    }
}

/// A notification the user can still see in Notification Center.
public struct DeliveredNotification: Sendable, Codable, Equatable {
    /// The apns-id, or the local notification's identifier.
    public var identifier: String
    public var isLocal: Bool
    public var collapseID: String?
    public var content: NotificationContent
    public var deliveredAt: EpochMilliseconds
    /// `push`, or the local trigger's kind.
    public var trigger: String
}

/// A remote notification APNs or the device is holding, with what delivery needs.
public struct PendingPush: Sendable, Codable, Equatable {
    public var apnsID: String
    public var receivedAt: EpochMilliseconds
    public var pushType: APNsPushType
    public var priority: Int
    /// Epoch milliseconds after which it is discarded.
    public var expiresAt: EpochMilliseconds
    public var collapseID: String?
    public var content: NotificationContent
}
