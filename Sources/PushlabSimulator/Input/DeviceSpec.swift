import PushlabCore

/// A device as people write it (scenario YAML, control-API JSON): every field optional, with the
/// simulator's defaults, so "a device with app X" is one line.
public struct DeviceSpec: Decodable, Sendable {
    public var id: String?
    public var name: String?
    public var iosVersion: String?
    public var online: Bool?
    public var locked: Bool?
    public var lowPowerMode: Bool?
    public var focus: Bool?
    /// Seconds east of UTC, for calendar triggers.
    public var utcOffsetSeconds: Int?
    public var apps: [AppSpec]?
    /// Enrolled in MDM: `{topic, pushMagic, token?}`.
    public var mdm: MDMSpec?

    public init(id: String? = nil, apps: [AppSpec]? = nil) {
        self.id = id
        self.apps = apps
    }

    /// The device it describes; `place` prefixes every message ("devices[2]").
    public func device(place: String) throws(SimulatorError) -> SimulatedDevice {
        var seen = Set<String>()
        var installs: [AppInstall] = []
        for (index, app) in (apps ?? []).enumerated() {
            guard seen.insert(app.bundleId).inserted else {
                throw SimulatorError(.invalid, "\(place).apps[\(index)]: \(app.bundleId) is listed twice")
            }
            installs.append(try app.install(place: "\(place).apps[\(index)]"))
        }
        if let offset = utcOffsetSeconds, abs(offset) > 18 * 3600 {
            throw SimulatorError(.invalid, "\(place).utcOffsetSeconds must be within ±64800 (18 hours), not \(offset)")
        }
        if let id, id.isEmpty || id.contains("/") {
            throw SimulatorError(.invalid, "\(place).id must be non-empty and without '/'")
        }
        return SimulatedDevice(
            id: id ?? "", name: name, iosVersion: iosVersion ?? "17.0", online: online ?? true,
            locked: locked ?? false, lowPowerMode: lowPowerMode ?? false, focus: focus ?? false,
            utcOffsetSeconds: utcOffsetSeconds ?? 0, apps: installs, mdm: try mdm?.enrollment(place: "\(place).mdm")
        )
    }
}

/// An app install as people write it.
public struct AppSpec: Decodable, Sendable {
    public var bundleId: String
    /// `development` (or `sandbox`, the default) or `production`.
    public var environment: String?
    /// 64+ hex digits; absent for a new random token.
    public var deviceToken: String?
    /// `userNotifications` (default) or `legacy`.
    public var api: String?
    /// Callback selectors (or their short names); absent for every callback of the API.
    public var implements: [String]?
    public var authorization: AuthorizationSpec?
    /// `[remote-notification]` (the default) or `[]`.
    public var backgroundModes: [String]?
    public var categories: [CategorySpec]?
    /// Any of `banner`, `list`, `sound`, `badge`.
    public var willPresentOptions: [String]?
    /// `true`, `false`, or what the extension does (`ServiceExtensionSpec`).
    public var serviceExtension: ServiceExtensionSetting?
    /// `notRunning` (default), `background`, `inactive` or `foreground`.
    public var state: String?
    /// `system` (default) or `user` (force-quit).
    public var terminatedBy: String?
    public var badge: Int?
    /// `true` or the app's Live Activities (`NSSupportsLiveActivities`); absent for none.
    public var liveActivities: LiveActivitySpec?
    public var voip: ServiceSpec<VoIPSpec>?
    public var locationPush: ServiceSpec<LocationPushSpec>?
    public var pushToTalk: ServiceSpec<PushToTalkSpec>?
    public var fileProvider: ServiceSpec<TokenServiceSpec>?
    public var widgets: ServiceSpec<TokenServiceSpec>?
    public var controls: ServiceSpec<TokenServiceSpec>?
    public var complication: ServiceSpec<ComplicationSpec>?
    /// The provider's backend the app calls.
    public var provider: ProviderBackendSpec?
    /// JPush's SDK, started with this appKey.
    public var jpush: ThirdPartySDKSpec?
    /// GeTui's SDK, started with this appId.
    public var getui: ThirdPartySDKSpec?

    public init(bundleId: String) { self.bundleId = bundleId }

    func sdk(place: String) throws(SimulatorError) -> ThirdPartySDK? {
        switch (jpush, getui) {
        case (nil, nil): return nil
        case (_?, _?): throw SimulatorError(.invalid, "\(place) carries jpush and getui: an app starts one push SDK")
        case (let spec?, nil): return try spec.sdk(.jpush, place: "\(place).jpush")
        case (nil, let spec?): return try spec.sdk(.getui, place: "\(place).getui")
        }
    }

    public func install(place: String) throws(SimulatorError) -> AppInstall {
        if bundleId.isEmpty { throw SimulatorError(.invalid, "\(place).bundleId must not be empty") }
        let api = try parse(self.api ?? "userNotifications", as: NotificationAPI.self, "\(place).api")
        var implements: Set<AppCallback>?
        if let names = self.implements {
            implements = []
            for name in names {
                guard let callback = AppCallback(name: name) else {
                    throw SimulatorError(.invalid, "\(place).implements: \(name) is not a callback (use a selector of docs/SIMULATOR.md, e.g. application:didReceiveRemoteNotification:)")
                }
                implements?.insert(callback)
            }
        }
        let modes = backgroundModes ?? ["remote-notification"]
        if let unknown = modes.first(where: { $0 != "remote-notification" && !Self.otherBackgroundModes.contains($0) }) {
            throw SimulatorError(.invalid, "\(place).backgroundModes: \(unknown) is not a background mode")
        }
        guard let options = PresentationOptions(names: willPresentOptions ?? []) else {
            throw SimulatorError(.invalid, "\(place).willPresentOptions may hold banner, list, sound and badge, not \(willPresentOptions ?? [])")
        }
        var categories: [NotificationCategory] = []
        for (index, category) in (self.categories ?? []).enumerated() {
            categories.append(try category.category(place: "\(place).categories[\(index)]"))
        }
        if let badge, !(0...NotificationContent.largestBadge).contains(badge) {
            throw SimulatorError(.invalid, "\(place).badge must be from 0 to \(NotificationContent.largestBadge), not \(badge)")
        }
        if let token = deviceToken, !token.isEmpty { try checkToken(token, place: "\(place).deviceToken") }
        return AppInstall(
            bundleID: bundleId,
            environment: try environment.map { text throws(SimulatorError) in try Self.environment(text, place: "\(place).environment") } ?? .development,
            deviceToken: deviceToken ?? "", api: api, implements: implements,
            authorization: try authorization?.authorization(place: "\(place).authorization") ?? .authorized,
            remoteNotificationBackgroundMode: modes.contains("remote-notification"),
            categories: categories, willPresentOptions: options, serviceExtension: serviceExtension?.isOn ?? false,
            state: try parse(state ?? "notRunning", as: AppState.self, "\(place).state"),
            terminatedBy: try parse(terminatedBy ?? "system", as: Termination.self, "\(place).terminatedBy"),
            badge: badge ?? 0,
            liveActivities: try liveActivities?.support(place: "\(place).liveActivities"),
            services: try pushServices(place: place),
            serviceExtensionBehavior: try serviceExtension?.behavior(place: "\(place).serviceExtension"),
            provider: try provider?.backend(place: "\(place).provider"),
            sdk: try sdk(place: place)
        )
    }

    static let otherBackgroundModes: Set<String> = ["audio", "fetch", "location", "voip", "processing", "bluetooth-central", "bluetooth-peripheral", "external-accessory", "push-to-talk"]

    static func environment(_ text: String, place: String) throws(SimulatorError) -> APNsEnvironment {
        switch text {
        case "development", "sandbox": .development
        case "production": .production
        default: throw SimulatorError(.invalid, "\(place) must be development (or sandbox) or production, not \(text)")
        }
    }
}

/// `authorized` as a word, or `{status, alert, badge, sound}`.
public struct AuthorizationSpec: Decodable, Sendable {
    public var status: String
    public var alert: Bool?
    public var badge: Bool?
    public var sound: Bool?

    private enum Keys: String, CodingKey { case status, alert, badge, sound }

    public init(from decoder: any Decoder) throws {
        if let word = try? decoder.singleValueContainer().decode(String.self) {
            status = word
            return
        }
        let container = try decoder.container(keyedBy: Keys.self)
        status = try container.decodeIfPresent(String.self, forKey: .status) ?? "authorized"
        alert = try container.decodeIfPresent(Bool.self, forKey: .alert)
        badge = try container.decodeIfPresent(Bool.self, forKey: .badge)
        sound = try container.decodeIfPresent(Bool.self, forKey: .sound)
    }

    func authorization(place: String) throws(SimulatorError) -> NotificationAuthorization {
        NotificationAuthorization(
            status: try parse(status, as: NotificationAuthorization.Status.self, "\(place).status"),
            alert: alert ?? true, badge: badge ?? true, sound: sound ?? true
        )
    }
}

public struct CategorySpec: Decodable, Sendable {
    public var id: String
    public var actions: [ActionSpec]?
    public var customDismissAction: Bool?

    public struct ActionSpec: Decodable, Sendable {
        public var id: String
        public var title: String?
        /// `foreground` (default) or `background`.
        public var activation: String?
        public var destructive: Bool?
        public var authenticationRequired: Bool?
        public var textInput: Bool?
    }

    func category(place: String) throws(SimulatorError) -> NotificationCategory {
        var actions: [NotificationCategory.Action] = []
        for (index, action) in (self.actions ?? []).enumerated() {
            let actionPlace = "\(place).actions[\(index)]"
            if action.id.isEmpty { throw SimulatorError(.invalid, "\(actionPlace).id must not be empty") }
            actions.append(NotificationCategory.Action(
                identifier: action.id, title: action.title,
                activation: try parse(action.activation ?? "foreground", as: NotificationCategory.Action.Activation.self, "\(actionPlace).activation"),
                destructive: action.destructive ?? false, authenticationRequired: action.authenticationRequired ?? false,
                textInput: action.textInput ?? false
            ))
        }
        return NotificationCategory(identifier: id, actions: actions, customDismissAction: customDismissAction ?? false)
    }
}

/// A token written in a spec (device, push-to-start, activity, service, MDM).
func checkToken(_ token: String, place: String) throws(SimulatorError) {
    guard DeviceTokenRecord.isWellFormed(token) else {
        throw SimulatorError(.invalid, "\(place) \(token) is not a device token (\(DeviceTokenRecord.formatHint))")
    }
}

/// A word that must be one of an enum's cases, with the choices in the message.
func parse<T: RawRepresentable & CaseIterable>(_ text: String, as type: T.Type, _ place: String) throws(SimulatorError) -> T where T.RawValue == String {
    guard let value = T(rawValue: text) else {
        throw SimulatorError(.invalid, "\(place) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), not \(text)")
    }
    return value
}

/// A push SDK in an app: `jpush: {appKey, registrationId}` or `getui: {appId, clientId}`. The
/// id, when given, is the one the service hands the SDK at its first registration (a test that
/// knows it in advance); otherwise the service makes one.
public struct ThirdPartySDKSpec: Decodable, Sendable {
    public var appKey: String?
    public var appId: String?
    public var registrationId: String?
    public var clientId: String?

    public init(appKey: String? = nil, appId: String? = nil, registrationId: String? = nil, clientId: String? = nil) {
        self.appKey = appKey
        self.appId = appId
        self.registrationId = registrationId
        self.clientId = clientId
    }

    func sdk(_ service: ThirdPartySDK.Service, place: String) throws(SimulatorError) -> ThirdPartySDK {
        let jpush = service == .jpush
        let (name, value) = jpush ? ("appKey", appKey) : ("appId", appId)
        guard let value, !value.isEmpty else { throw SimulatorError(.invalid, "\(place).\(name) must name the service's app") }
        let (idName, id) = jpush ? ("registrationId", registrationId) : ("clientId", clientId)
        if let id, id.isEmpty || id.count > 64 || !id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
            throw SimulatorError(.invalid, "\(place).\(idName) must be 1 to 64 letters and digits, not \(id)")
        }
        return ThirdPartySDK(service: service, appKey: value, requestedID: id)
    }
}
