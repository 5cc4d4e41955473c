import PushlabSimulator

/// `PATCH /v1/devices/{id}`: the device's switches; an absent field stays as it is.
struct DeviceChangeBody: ControlBody {
    var name: String?
    var online: Bool?
    var locked: Bool?
    var lowPowerMode: Bool?
    var focus: Bool?
    var utcOffsetSeconds: Int?

    static let shape = BodyShape.fields(["name", "online", "locked", "lowPowerMode", "focus", "utcOffsetSeconds"])
    static let example = #"{"online":true}"#

    func check() throws(ControlError) {
        if let name, name.isEmpty { throw .invalid("name must not be empty") }
        try InputLimits.checkUTCOffset(utcOffsetSeconds, field: "utcOffsetSeconds")
    }
}

/// `PATCH /v1/devices/{id}/apps/{bundleId}`: a change of state (as the user or the system makes
/// it, so the app's callbacks are observed) and settings (changed in place).
struct AppChangeBody: ControlBody {
    var state: String?
    var terminatedBy: String?
    var implements: [String]?
    var authorization: AuthorizationSpec?
    var backgroundModes: [String]?
    var categories: [CategorySpec]?
    var willPresentOptions: [String]?
    var serviceExtension: ServiceExtensionSetting?
    var badge: Int?
    var voip: ServiceSpec<VoIPSpec>?
    var locationPush: ServiceSpec<LocationPushSpec>?
    var pushToTalk: ServiceSpec<PushToTalkSpec>?
    var complication: ServiceSpec<ComplicationSpec>?
    var provider: ProviderBackendSpec?

    static let shape = BodyShape.fields(["state", "terminatedBy"] + SpecShapes.appSettings, SpecShapes.appNested)
    static let example = #"{"state":"foreground"}"#

    var changesServices: Bool { voip != nil || locationPush != nil || pushToTalk != nil || complication != nil }

    var changesSettings: Bool {
        implements != nil || authorization != nil || backgroundModes != nil || categories != nil
            || willPresentOptions != nil || serviceExtension != nil || badge != nil || changesServices || provider != nil
    }

    /// The settings as an `AppSpec`, so they are read (and refused) exactly as in a scenario.
    func settingsSpec(bundleID: String) -> AppSpec {
        var spec = AppSpec(bundleId: bundleID)
        spec.implements = implements
        spec.authorization = authorization
        spec.backgroundModes = backgroundModes
        spec.categories = categories
        spec.willPresentOptions = willPresentOptions
        spec.serviceExtension = serviceExtension
        spec.badge = badge
        spec.voip = voip
        spec.locationPush = locationPush
        spec.pushToTalk = pushToTalk
        spec.complication = complication
        spec.provider = provider
        return spec
    }
}
