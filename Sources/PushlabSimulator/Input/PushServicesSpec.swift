import PushlabCore

/// `true`, or a map of the service's settings: how each push service is written in an app.
/// `false` (or leaving it out) means the app has no such part.
public struct ServiceSpec<Settings: Decodable & Sendable>: Decodable, Sendable {
    public var settings: Settings?

    public init(from decoder: any Decoder) throws {
        if let flag = try? decoder.singleValueContainer().decode(Bool.self) {
            guard flag else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "true or a map of settings; leave it out for an app without it"))
            }
            settings = nil
            return
        }
        settings = try Settings(from: decoder)
    }
}

/// The fields every service may give: a fixed token.
public struct TokenServiceSpec: Decodable, Sendable {
    public var token: String?
}

public struct VoIPSpec: Decodable, Sendable {
    public var token: String?
    /// `immediately` (default), `late` or `never`.
    public var reportsCall: String?
    public var callerKey: String?
}

public struct LocationPushSpec: Decodable, Sendable {
    public var token: String?
    public var entitlement: Bool?
    /// `always` (default), `whenInUse`, `denied`, `notDetermined`.
    public var authorization: String?
}

public struct PushToTalkSpec: Decodable, Sendable {
    public var token: String?
    public var inChannel: Bool?
    /// `activeRemoteParticipant` (default) or `leaveChannel`.
    public var result: String?
}

public struct ComplicationSpec: Decodable, Sendable {
    public var token: String?
    public var onActiveWatchFace: Bool?
}

public struct ServiceExtensionSpec: Decodable, Sendable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var attachment: String?
    public var seconds: Double?
    /// `finishes` (default), `crashes` or `exceedsMemory`.
    public var outcome: String?
    public var deliversBestAttempt: Bool?
    public var communicationSender: String?

    func behavior(place: String) throws(SimulatorError) -> ServiceExtensionBehavior {
        if let seconds, !(seconds >= 0 && seconds <= 3600) { throw SimulatorError(.invalid, "\(place).seconds must be 0...3600, not \(seconds)") }
        return ServiceExtensionBehavior(
            title: title, subtitle: subtitle, body: body, attachment: attachment, seconds: seconds ?? 0,
            outcome: try parse(outcome ?? "finishes", as: ServiceExtensionBehavior.Outcome.self, "\(place).outcome"),
            deliversBestAttempt: deliversBestAttempt ?? true, communicationSender: communicationSender
        )
    }
}

/// `mdm:` of a device: enrolled in MDM.
public struct MDMSpec: Decodable, Sendable {
    public var topic: String
    public var token: String?
    public var pushMagic: String

    func enrollment(place: String) throws(SimulatorError) -> MDMEnrollment {
        if topic.isEmpty { throw SimulatorError(.invalid, "\(place).topic must not be empty (the MDM certificate's UID)") }
        if pushMagic.isEmpty { throw SimulatorError(.invalid, "\(place).pushMagic must not be empty") }
        if let token { try checkToken(token, place: "\(place).token") }
        return MDMEnrollment(topic: topic, token: token?.lowercased() ?? "", pushMagic: pushMagic)
    }
}

extension AppSpec {
    /// The app's push services, or nil when it has none.
    func pushServices(place: String) throws(SimulatorError) -> PushServices? {
        var services = PushServices()
        func token(_ value: String?, _ field: String) throws(SimulatorError) -> String {
            guard let value else { return "" }
            try checkToken(value, place: "\(place).\(field).token")
            return value.lowercased()
        }
        if let voip {
            let settings = voip.settings
            services.voip = VoIPService(
                token: try token(settings?.token, "voip"),
                reportsCall: try parse(settings?.reportsCall ?? "immediately", as: VoIPService.CallReporting.self, "\(place).voip.reportsCall"),
                callerKey: settings?.callerKey
            )
        }
        if let locationPush {
            let settings = locationPush.settings
            services.location = LocationPushService(
                token: try token(settings?.token, "locationPush"), entitlement: settings?.entitlement ?? true,
                authorization: try parse(settings?.authorization ?? "always", as: LocationPushService.Authorization.self, "\(place).locationPush.authorization")
            )
        }
        if let pushToTalk {
            let settings = pushToTalk.settings
            services.pushToTalk = PushToTalkService(
                token: try token(settings?.token, "pushToTalk"), inChannel: settings?.inChannel ?? true,
                result: try parse(settings?.result ?? "activeRemoteParticipant", as: PushToTalkService.PushResult.self, "\(place).pushToTalk.result")
            )
        }
        if let fileProvider { services.fileProvider = TokenService(token: try token(fileProvider.settings?.token, "fileProvider")) }
        if let widgets { services.widgets = WidgetPushService(token: try token(widgets.settings?.token, "widgets")) }
        if let controls { services.controls = TokenService(token: try token(controls.settings?.token, "controls")) }
        if let complication {
            services.complication = ComplicationService(
                token: try token(complication.settings?.token, "complication"), onActiveWatchFace: complication.settings?.onActiveWatchFace ?? true
            )
        }
        return services == PushServices() ? nil : services
    }
}

/// `serviceExtension:` of an app: a flag, or what the extension does (which turns it on).
public struct ServiceExtensionSetting: Decodable, Sendable {
    public var isOn: Bool
    public var spec: ServiceExtensionSpec?

    public init(isOn: Bool) {
        self.isOn = isOn
    }

    public init(from decoder: any Decoder) throws {
        if let flag = try? decoder.singleValueContainer().decode(Bool.self) {
            isOn = flag
            return
        }
        isOn = true
        spec = try ServiceExtensionSpec(from: decoder)
    }

    func behavior(place: String) throws(SimulatorError) -> ServiceExtensionBehavior? {
        try spec?.behavior(place: place)
    }
}
