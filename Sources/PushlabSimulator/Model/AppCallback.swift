/// The callbacks the simulator can observe, named by their Objective-C selectors (reference 7).
public enum AppCallback: String, Sendable, Codable, CaseIterable {
    case didFinishLaunching = "application:didFinishLaunchingWithOptions:"
    case didRegisterForRemoteNotifications = "application:didRegisterForRemoteNotificationsWithDeviceToken:"
    case didFailToRegisterForRemoteNotifications = "application:didFailToRegisterForRemoteNotificationsWithError:"
    case didReceiveRemoteNotification = "application:didReceiveRemoteNotification:"
    case didReceiveRemoteNotificationFetch = "application:didReceiveRemoteNotification:fetchCompletionHandler:"
    case didReceiveLocalNotification = "application:didReceiveLocalNotification:"
    case handleRemoteAction = "application:handleActionWithIdentifier:forRemoteNotification:completionHandler:"
    case handleRemoteActionWithResponseInfo = "application:handleActionWithIdentifier:forRemoteNotification:withResponseInfo:completionHandler:"
    case handleLocalAction = "application:handleActionWithIdentifier:forLocalNotification:completionHandler:"
    case handleLocalActionWithResponseInfo = "application:handleActionWithIdentifier:forLocalNotification:withResponseInfo:completionHandler:"
    case willPresent = "userNotificationCenter:willPresentNotification:withCompletionHandler:"
    case didReceiveResponse = "userNotificationCenter:didReceiveNotificationResponse:withCompletionHandler:"
    case serviceExtension = "didReceiveNotificationRequest:withContentHandler:"
    case willEnterForeground = "applicationWillEnterForeground:"
    case didBecomeActive = "applicationDidBecomeActive:"
    case didEnterBackground = "applicationDidEnterBackground:"
    // ActivityKit's async sequences (an app with Live Activities iterates them while it runs).
    case pushToStartTokenUpdates = "Activity.pushToStartTokenUpdates"
    case activityUpdates = "Activity.activityUpdates"
    case pushTokenUpdates = "Activity.pushTokenUpdates"
    case activityStateUpdates = "Activity.activityStateUpdates"
    case contentUpdates = "Activity.contentUpdates"

    // PushKit, CallKit and the other push types' entry points.
    case pushRegistryDidUpdateCredentials = "pushRegistry:didUpdatePushCredentials:forType:"
    case pushRegistryDidReceiveIncomingPush = "pushRegistry:didReceiveIncomingPushWithPayload:forType:withCompletionHandler:"
    case serviceExtensionTimeWillExpire = "serviceExtensionTimeWillExpire"
    case locationPushToken = "startMonitoringLocationPushesWithCompletion:"
    case didReceiveLocationPushPayload = "didReceiveLocationPushPayload:completion:"
    case pushToTalkEphemeralToken = "channelManager:receivedEphemeralPushToken:"
    case pushToTalkIncomingPush = "incomingPushResultForChannelManager:channelUUID:pushPayload:"
    case pushToTalkDidLeaveChannel = "channelManager:didLeaveChannelWithUUID:reason:"
    case fileProviderEnumerateChanges = "enumerateChangesForObserver:fromSyncAnchor:"
    case widgetPushTokenDidChange = "WidgetPushHandler.pushTokenDidChange"
    case controlPushTokensDidChange = "ControlPushHandler.pushTokensDidChange"

    // Third-party SDKs (ThirdPartySDK): their own delegate methods and notifications.
    case jpushRegistrationID = "JPUSHService.registrationIDCompletionHandler:"
    case jpushDidReceiveMessage = "kJPFNetworkDidReceiveMessageNotification"
    case jpushWillPresent = "jpushNotificationCenter:willPresentNotification:withCompletionHandler:"
    case jpushDidReceiveResponse = "jpushNotificationCenter:didReceiveNotificationResponse:withCompletionHandler:"
    case getuiDidRegisterClient = "GeTuiSdkDidRegisterClient:"
    case getuiDidReceiveSilence = "GeTuiSdkDidReceiveSlience:fromGetui:offLine:appId:taskId:msgId:fetchCompletionHandler:"
    case getuiWillPresent = "GeTuiSdkNotificationCenter:willPresentNotification:completionHandler:"
    case getuiDidReceiveNotification = "GeTuiSdkDidReceiveNotification:notificationCenter:response:fetchCompletionHandler:"

    /// Read by name from a table: a store reads back every app's `implements` (some 25 names
    /// each), and the synthesized reading compares a name with the cases one by one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let callback = Self.byName[name] else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(name) is not a callback")
        }
        self = callback
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// Code of an extension or of the system, not of the app: observed whatever `implements` says.
    public static let extensionEntryPoints: Set<AppCallback> = [
        .serviceExtension, .serviceExtensionTimeWillExpire, .didReceiveLocationPushPayload, .fileProviderEnumerateChanges,
    ]

    /// The SDKs' methods: the SDK's own delegate, observed whenever the app carries the SDK.
    public static let thirdPartySDK: Set<AppCallback> = [
        .jpushRegistrationID, .jpushDidReceiveMessage, .jpushWillPresent, .jpushDidReceiveResponse,
        .getuiDidRegisterClient, .getuiDidReceiveSilence, .getuiWillPresent, .getuiDidReceiveNotification,
    ]

    /// The ActivityKit sequences.
    public static let activityKit: Set<AppCallback> = [.pushToStartTokenUpdates, .activityUpdates, .pushTokenUpdates, .activityStateUpdates, .contentUpdates]

    /// Every callback of an API (the default `implements`): the app delegate's launch, registration
    /// and life-cycle callbacks always exist; the notification callbacks are the API's own. Made
    /// once: a million installs share the two sets.
    public static func all(for api: NotificationAPI) -> Set<AppCallback> {
        switch api {
        case .legacy: allLegacy
        case .userNotifications: allUserNotifications
        }
    }

    private static let allLegacy = every(for: .legacy)
    private static let allUserNotifications = every(for: .userNotifications)

    private static func every(for api: NotificationAPI) -> Set<AppCallback> {
        var callbacks: Set<AppCallback> = [
            .didFinishLaunching, .didRegisterForRemoteNotifications, .didFailToRegisterForRemoteNotifications,
            .didReceiveRemoteNotificationFetch, .willEnterForeground, .didBecomeActive, .didEnterBackground,
        ]
        callbacks.formUnion(activityKit)
        callbacks.formUnion([
            .pushRegistryDidUpdateCredentials, .pushRegistryDidReceiveIncomingPush, .serviceExtensionTimeWillExpire, .locationPushToken,
            .didReceiveLocationPushPayload, .pushToTalkEphemeralToken, .pushToTalkIncomingPush, .pushToTalkDidLeaveChannel,
            .fileProviderEnumerateChanges, .widgetPushTokenDidChange, .controlPushTokensDidChange,
        ])
        switch api {
        case .legacy:
            callbacks.formUnion([
                .didReceiveRemoteNotification, .didReceiveLocalNotification,
                .handleRemoteAction, .handleRemoteActionWithResponseInfo,
                .handleLocalAction, .handleLocalActionWithResponseInfo,
            ])
        case .userNotifications:
            callbacks.formUnion([.willPresent, .didReceiveResponse])
        }
        return callbacks
    }

    /// Accepts the selector or the case name, so scenario files may use either.
    public init?(name: String) {
        if let callback = AppCallback(rawValue: name) {
            self = callback
        } else if let callback = AppCallback.allCases.first(where: { "\($0)" == name }) {
            self = callback
        } else {
            return nil
        }
    }
}

/// Keys and identifiers developers see in callback arguments (reference 7).
public enum CallbackKey {
    public static let remoteNotificationLaunchKey = "UIApplicationLaunchOptionsRemoteNotificationKey"
    public static let localNotificationLaunchKey = "UIApplicationLaunchOptionsLocalNotificationKey"
    public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    public static let dismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"
    /// The typed text of a text-input action in the legacy `withResponseInfo:` dictionary.
    public static let typedTextKey = "UIUserNotificationActionResponseTypedTextKey"
}
