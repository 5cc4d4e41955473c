import PushlabSimulator

/// `POST /v1/keys`: a provider-token signing key. The PEM may be the public key or the `.p8`
/// private key (only its public half is used; nothing of it is echoed).
struct KeyBody: ControlBody {
    var keyId: String
    var teamId: String
    var publicKeyPem: String?
    var privateKeyPem: String?
    /// `development`, `production` or `both` (the default).
    var environment: String?
    /// Bundle ids a topic-specific key may push to; absent for a team-scoped key.
    var topics: [String]?

    static let shape = BodyShape.fields(["keyId", "teamId", "publicKeyPem", "privateKeyPem", "environment", "topics"])
    static let example = #"{"keyId":"ABC123DEFG","teamId":"DEF123GHIJ","publicKeyPem":"-----BEGIN PUBLIC KEY-----\n…"}"#
}

/// `POST /v1/apps`: an app (bundle id) of a team, so that the team's keys may push to it.
struct AppRecordBody: ControlBody {
    var bundleId: String
    var teamId: String
    /// The Broadcast Push Notifications capability; off answers `FeatureNotEnabled`.
    var broadcastEnabled: Bool?

    static let shape = BodyShape.fields(["bundleId", "teamId", "broadcastEnabled"])
    static let example = #"{"bundleId":"com.example.app","teamId":"DEF123GHIJ"}"#
}

/// The fields of an app install (`AppSpec`), for checking a body's keys.
enum SpecShapes {
    static let action = BodyShape.fields(["id", "title", "activation", "destructive", "authenticationRequired", "textInput"])
    static let category = BodyShape.fields(["id", "actions", "customDismissAction"], ["actions": .list(action)])
    static let authorization = BodyShape.fields(["status", "alert", "badge", "sound"])
    static let appSettings = [
        "implements", "authorization", "backgroundModes", "categories", "willPresentOptions", "serviceExtension", "badge",
        "voip", "locationPush", "pushToTalk", "complication", "provider",
    ]
    static let services: [String: BodyShape] = [
        "serviceExtension": BodyShape.fields(["title", "subtitle", "body", "attachment", "seconds", "outcome", "deliversBestAttempt", "communicationSender"]),
        "voip": BodyShape.fields(["token", "reportsCall", "callerKey"]),
        "locationPush": BodyShape.fields(["token", "entitlement", "authorization"]),
        "pushToTalk": BodyShape.fields(["token", "inChannel", "result"]),
        "fileProvider": BodyShape.fields(["token"]), "widgets": BodyShape.fields(["token"]), "controls": BodyShape.fields(["token"]),
        "complication": BodyShape.fields(["token", "onActiveWatchFace"]),
        "provider": BodyShape.fields(["baseURL", "requests"], [
            "requests": .list(BodyShape.fields(["event", "method", "path", "headers", "body", "timeoutSeconds"])),
        ]),
    ]
    static let activity = BodyShape.fields(["attributesType", "attributes", "contentState", "staleDate", "relevanceScore", "pushType", "pushToken", "channelId"])
    static let liveActivities = BodyShape.fields(
        ["enabled", "frequentUpdates", "frequentUpdatesEnabled", "pushToStartToken", "attributesTypes", "activities"], ["activities": .list(activity)]
    )
    static let appNested: [String: BodyShape] = ["categories": .list(category), "authorization": authorization, "liveActivities": liveActivities]
        .merging(services) { first, _ in first }
    static let sdks: [String: BodyShape] = ["jpush": BodyShape.fields(["appKey", "registrationId"]), "getui": BodyShape.fields(["appId", "clientId"])]
    static let app = BodyShape.fields(
        ["bundleId", "environment", "deviceToken", "api", "state", "terminatedBy", "liveActivities", "fileProvider", "widgets", "controls", "jpush", "getui"]
            + appSettings,
        appNested.merging(sdks) { first, _ in first }
    )
    static let device = BodyShape.fields(
        ["id", "name", "iosVersion", "online", "locked", "lowPowerMode", "focus", "utcOffsetSeconds", "apps", "mdm"],
        ["apps": .list(app), "mdm": BodyShape.fields(["topic", "token", "pushMagic"])]
    )
}

extension DeviceSpec: ControlBody {
    static let shape = SpecShapes.device
    static let example = #"{"name":"Ann's iPhone","apps":[{"bundleId":"com.example.app","state":"background"}]}"#
}

extension AppSpec: ControlBody {
    static let shape = SpecShapes.app
    static let example = #"{"bundleId":"com.example.app","state":"background"}"#
}
