import PushlabCore

/// One app on one simulated device, with everything the device remembers about it.
public struct AppInstall: Sendable, Codable, Equatable {
    public var bundleID: String { didSet { revision.advance(if: oldValue != bundleID) } }
    /// How the build was signed: its token works only on the matching APNs host.
    public var environment: APNsEnvironment { didSet { revision.advance(if: oldValue != environment) } }
    /// 64 lower-case hex digits; a reinstall replaces it.
    public var deviceToken: String { didSet { revision.advance(if: oldValue != deviceToken) } }
    public var api: NotificationAPI { didSet { revision.advance(if: oldValue != api) } }
    /// Callbacks the app implements; one it lacks is never observed.
    public var implements: Set<AppCallback> { didSet { revision.advance() } }
    public var authorization: NotificationAuthorization { didSet { revision.advance(if: oldValue != authorization) } }
    /// Whether `remote-notification` is among its background modes (silent pushes wake it).
    public var remoteNotificationBackgroundMode: Bool { didSet { revision.advance(if: oldValue != remoteNotificationBackgroundMode) } }
    public var categories: [NotificationCategory] { didSet { revision.advance() } }
    public var willPresentOptions: PresentationOptions { didSet { revision.advance(if: oldValue != willPresentOptions) } }
    /// Whether `mutable-content: 1` goes through a Notification Service Extension.
    public var serviceExtension: Bool { didSet { revision.advance(if: oldValue != serviceExtension) } }
    public var state: AppState { didSet { revision.advance(if: oldValue != state) } }
    /// Who ended the app when it is not running.
    public var terminatedBy: Termination { didSet { revision.advance(if: oldValue != terminatedBy) } }
    public var badge: Int { didSet { revision.advance(if: oldValue != badge) } }
    /// Delivered notifications not yet opened or cleared, oldest first.
    public var notificationCenter: [DeliveredNotification]
    public var pendingLocal: [LocalNotification] { didSet { revision.advance() } }

    // What APNs and the system hold back for this app.
    /// The one notification APNs stores while the device is offline.
    public var storedWhileOffline: PendingPush? { didSet { advanceHeld() } }
    /// The newest background push held over budget or in low power mode.
    public var heldBackground: PendingPush? { didSet { advanceHeld() } }
    /// When the budget that holds `heldBackground` lets it through; nil while low power mode holds it.
    public var heldBackgroundUntil: EpochMilliseconds? { didSet { revision.advance(if: oldValue != heldBackgroundUntil) } }
    /// Priority 5 and 1 pushes held back while the device is in low power mode.
    public var heldLowPriority: [PendingPush] { didSet { advanceHeld() } }
    /// When background pushes were delivered, for the budget's windows (the last day's).
    public var backgroundDeliveries: [EpochMilliseconds] { didSet { revision.advance() } }
    /// The app has been told its device token since it was (re)installed.
    public var tokenAnnounced: Bool { didSet { revision.advance(if: oldValue != tokenAnnounced) } }
    /// Running, yet never told its token: an app created running, whose launch is still to come.
    var awaitsLaunch: Bool { state != .notRunning && !tokenAnnounced }
    /// Live Activities (ActivityKit); nil for an app without `NSSupportsLiveActivities`.
    @OutOfLine public var liveActivities: LiveActivitySupport? { didSet { revision.advance() } }
    /// PushKit VoIP, location push, Push to Talk, File Provider, widgets, controls, complication.
    @OutOfLine public var services: PushServices? { didSet { revision.advance() } }
    /// What the Notification Service Extension does (with `serviceExtension`); nil: it hands the
    /// content back unchanged at once.
    @OutOfLine public var serviceExtensionBehavior: ServiceExtensionBehavior? { didSet { revision.advance() } }
    /// The provider's backend the app calls (registration, fetches, replies); nil for none.
    @OutOfLine public var provider: ProviderBackend? { didSet { revision.advance() } }
    /// A JPush or GeTui SDK in the app; nil for none.
    @OutOfLine public var sdk: ThirdPartySDK? { didSet { revision.advance() } }

    /// Moves on with every change to anything but `notificationCenter` (the observers above): a
    /// session tells from it, without a copy of the install, whether the device has more to save
    /// than Notification Center entries. Neither saved nor compared.
    var revision = Revision()
    /// Moves on when what APNs or the system holds back for the app changes (a push stored while
    /// offline, held over budget or in low power mode): the store saves such a device with the
    /// next batch rather than within its snapshot interval, since a crash would otherwise lose a
    /// push its phone has taken. Neither saved nor compared.
    var heldRevision = Revision()

    private mutating func advanceHeld() {
        revision.advance()
        heldRevision.advance()
    }

    public init(
        bundleID: String, environment: APNsEnvironment = .development, deviceToken: String,
        api: NotificationAPI = .userNotifications, implements: Set<AppCallback>? = nil,
        authorization: NotificationAuthorization = .authorized, remoteNotificationBackgroundMode: Bool = true,
        categories: [NotificationCategory] = [], willPresentOptions: PresentationOptions = [],
        serviceExtension: Bool = false, state: AppState = .notRunning, terminatedBy: Termination = .system, badge: Int = 0,
        liveActivities: LiveActivitySupport? = nil, services: PushServices? = nil, serviceExtensionBehavior: ServiceExtensionBehavior? = nil,
        provider: ProviderBackend? = nil, sdk: ThirdPartySDK? = nil
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
        heldBackgroundUntil = nil
        heldLowPriority = []
        backgroundDeliveries = []
        tokenAnnounced = false
        self.liveActivities = liveActivities
        self.services = services
        self.serviceExtensionBehavior = serviceExtensionBehavior
        self.provider = provider
        self.sdk = sdk
    }

    func category(_ identifier: String?) -> NotificationCategory? {
        guard let identifier else { return nil }
        return categories.first { $0.identifier == identifier }
    }
}

/// A remote notification APNs or the device is holding, with what delivery needs. A class:
/// most apps hold none, and an optional reference costs an install 8 bytes instead of ~200.
public final class PendingPush: Sendable, Codable, Equatable {
    /// The apns-id as APNs read it: each record of the push carries it without a string.
    public let apnsIDValue: APNsID
    public let receivedAt: EpochMilliseconds
    public let pushType: APNsPushType
    public let priority: Int
    /// Epoch milliseconds after which it is discarded.
    public let expiresAt: EpochMilliseconds
    public let collapseID: String?
    public let content: NotificationContent
    /// The token it was sent to, for a push to a Live Activity or push-to-start token.
    public let token: String?
    /// What its Notification Center entry shares with every other push of the same payload
    /// (`PayloadContents`); nil: the entry gets a part of its own. Not saved.
    let sharedEntry: DeliveredNotification.Shared?

    public var apnsID: String { apnsIDValue.text }

    private enum CodingKeys: String, CodingKey {
        case apnsIDValue = "apnsID", receivedAt, pushType, priority, expiresAt, collapseID, content, token
    }

    public convenience init(apnsID: String, receivedAt: EpochMilliseconds, pushType: APNsPushType, priority: Int, expiresAt: EpochMilliseconds, collapseID: String?, content: NotificationContent, token: String? = nil) {
        self.init(
            apnsID: APNsID(apnsID), receivedAt: receivedAt, pushType: pushType, priority: priority, expiresAt: expiresAt, collapseID: collapseID,
            content: content, token: token, sharedEntry: nil
        )
    }

    init(
        apnsID: APNsID, receivedAt: EpochMilliseconds, pushType: APNsPushType, priority: Int, expiresAt: EpochMilliseconds, collapseID: String?,
        content: NotificationContent, token: String?, sharedEntry: DeliveredNotification.Shared?
    ) {
        self.sharedEntry = sharedEntry
        self.apnsIDValue = apnsID
        self.receivedAt = receivedAt
        self.pushType = pushType
        self.priority = priority
        self.expiresAt = expiresAt
        self.collapseID = collapseID
        self.content = content
        self.token = token
    }

    public required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        apnsIDValue = try container.decode(APNsID.self, forKey: .apnsIDValue)
        receivedAt = try container.decode(EpochMilliseconds.self, forKey: .receivedAt)
        pushType = try container.decode(APNsPushType.self, forKey: .pushType)
        priority = try container.decode(Int.self, forKey: .priority)
        expiresAt = try container.decode(EpochMilliseconds.self, forKey: .expiresAt)
        collapseID = try container.decodeIfPresent(String.self, forKey: .collapseID)
        content = try container.decode(NotificationContent.self, forKey: .content)
        token = try container.decodeIfPresent(String.self, forKey: .token)
        sharedEntry = nil
    }

    public static func == (lhs: PendingPush, rhs: PendingPush) -> Bool {
        lhs.apnsIDValue == rhs.apnsIDValue && lhs.receivedAt == rhs.receivedAt && lhs.pushType == rhs.pushType
            && lhs.priority == rhs.priority && lhs.expiresAt == rhs.expiresAt && lhs.collapseID == rhs.collapseID
            && lhs.content == rhs.content && lhs.token == rhs.token
    }
}
