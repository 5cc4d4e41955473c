import PushlabCore

extension CodingUserInfoKey {
    /// Set by an encoder of saved snapshots: an install leaves out what a decoder restores
    /// unasked (`implements` when it is every callback of the install's API).
    public static let omitsDefaults = CodingUserInfoKey(rawValue: "pushlab.omitsDefaults")!
}

/// Written by hand for one field: `implements` is most of an install's JSON (1.2 of 2 KB) and
/// almost always every callback of its API. A saved snapshot leaves it out then
/// (`omitsDefaults`), and an install read without it implements every callback; the control
/// API and scenario exports still list it.
extension AppInstall {
    private enum CodingKeys: String, CodingKey {
        case bundleID, environment, deviceToken, api, implements, authorization, remoteNotificationBackgroundMode, categories
        case willPresentOptions, serviceExtension, state, terminatedBy, badge, notificationCenter, pendingLocal, storedWhileOffline
        case heldBackground, heldBackgroundUntil, heldLowPriority, backgroundDeliveries, tokenAnnounced, liveActivities, services
        case serviceExtensionBehavior, provider, sdk
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleID = try container.decode(String.self, forKey: .bundleID)
        environment = try container.decode(APNsEnvironment.self, forKey: .environment)
        deviceToken = try container.decode(String.self, forKey: .deviceToken)
        api = try container.decode(NotificationAPI.self, forKey: .api)
        implements = try container.decodeIfPresent(Set<AppCallback>.self, forKey: .implements) ?? AppCallback.all(for: api)
        authorization = try container.decode(NotificationAuthorization.self, forKey: .authorization)
        remoteNotificationBackgroundMode = try container.decode(Bool.self, forKey: .remoteNotificationBackgroundMode)
        categories = try container.decode([NotificationCategory].self, forKey: .categories)
        willPresentOptions = try container.decode(PresentationOptions.self, forKey: .willPresentOptions)
        serviceExtension = try container.decode(Bool.self, forKey: .serviceExtension)
        state = try container.decode(AppState.self, forKey: .state)
        terminatedBy = try container.decode(Termination.self, forKey: .terminatedBy)
        badge = try container.decode(Int.self, forKey: .badge)
        notificationCenter = try container.decode([DeliveredNotification].self, forKey: .notificationCenter)
        pendingLocal = try container.decode([LocalNotification].self, forKey: .pendingLocal)
        storedWhileOffline = try container.decodeIfPresent(PendingPush.self, forKey: .storedWhileOffline)
        heldBackground = try container.decodeIfPresent(PendingPush.self, forKey: .heldBackground)
        heldBackgroundUntil = try container.decodeIfPresent(EpochMilliseconds.self, forKey: .heldBackgroundUntil)
        heldLowPriority = try container.decode([PendingPush].self, forKey: .heldLowPriority)
        backgroundDeliveries = try container.decode([EpochMilliseconds].self, forKey: .backgroundDeliveries)
        tokenAnnounced = try container.decode(Bool.self, forKey: .tokenAnnounced)
        liveActivities = try container.decodeIfPresent(LiveActivitySupport.self, forKey: .liveActivities)
        services = try container.decodeIfPresent(PushServices.self, forKey: .services)
        serviceExtensionBehavior = try container.decodeIfPresent(ServiceExtensionBehavior.self, forKey: .serviceExtensionBehavior)
        provider = try container.decodeIfPresent(ProviderBackend.self, forKey: .provider)
        sdk = try container.decodeIfPresent(ThirdPartySDK.self, forKey: .sdk)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bundleID, forKey: .bundleID)
        try container.encode(environment, forKey: .environment)
        try container.encode(deviceToken, forKey: .deviceToken)
        try container.encode(api, forKey: .api)
        if encoder.userInfo[.omitsDefaults] as? Bool != true || implements != AppCallback.all(for: api) {
            try container.encode(implements, forKey: .implements)
        }
        try container.encode(authorization, forKey: .authorization)
        try container.encode(remoteNotificationBackgroundMode, forKey: .remoteNotificationBackgroundMode)
        try container.encode(categories, forKey: .categories)
        try container.encode(willPresentOptions, forKey: .willPresentOptions)
        try container.encode(serviceExtension, forKey: .serviceExtension)
        try container.encode(state, forKey: .state)
        try container.encode(terminatedBy, forKey: .terminatedBy)
        try container.encode(badge, forKey: .badge)
        try container.encode(notificationCenter, forKey: .notificationCenter)
        try container.encode(pendingLocal, forKey: .pendingLocal)
        try container.encodeIfPresent(storedWhileOffline, forKey: .storedWhileOffline)
        try container.encodeIfPresent(heldBackground, forKey: .heldBackground)
        try container.encodeIfPresent(heldBackgroundUntil, forKey: .heldBackgroundUntil)
        try container.encode(heldLowPriority, forKey: .heldLowPriority)
        try container.encode(backgroundDeliveries, forKey: .backgroundDeliveries)
        try container.encode(tokenAnnounced, forKey: .tokenAnnounced)
        try container.encode(liveActivities, forKey: .liveActivities)
        try container.encode(services, forKey: .services)
        try container.encode(serviceExtensionBehavior, forKey: .serviceExtensionBehavior)
        try container.encode(provider, forKey: .provider)
        try container.encodeIfPresent(sdk, forKey: .sdk)
    }
}
