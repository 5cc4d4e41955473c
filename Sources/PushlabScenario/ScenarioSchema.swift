import Yams

/// The keys a scenario file may use, so that a misspelling is an error instead of a silently
/// ignored setting.
enum ScenarioSchema {
    /// What a node may hold: a mapping with these keys (each with its own shape), a list of one
    /// shape, or anything (a leaf).
    indirect enum Shape: Sendable {
        case mapping([String: Shape])
        case list(Shape)
        case leaf
    }

    static func fields(_ names: [String], _ nested: [String: Shape] = [:]) -> Shape {
        .mapping(Dictionary(uniqueKeysWithValues: names.map { ($0, nested[$0] ?? .leaf) }))
    }

    static let policyKeys = [
        "checkOrder", "maxConcurrentStreams", "streamsBeforeFirstValidToken", "throttleStreamsAfterRejection",
        "deviceTokenFormat", "acceptUnknownDeviceTokens", "strictBackgroundPriority", "strictPayload", "strictApnsIDCase",
        "providerTokenLifetimeSeconds", "providerTokenFutureSkewSeconds", "providerTokenUpdateWindowSeconds",
        "providerTokenUpdateAllowance", "environmentKeyReason", "multiTopicCertificateDefaultsToAppTopic",
        "deviceTokenRateLimit", "errorBudgetPerConnection", "badDeviceTokenErrorWeight", "idleTimeoutSeconds",
        "sendUniqueIDInDevelopment", "channelLimitPerApp", "broadcastPayloadLimit", "maxChannelIDLength",
    ]

    static let distribution = fields(["distribution", "ms", "minMs", "maxMs", "p50Ms", "p99Ms"])
    static let latency = fields(
        ["development", "production", "both", "connectionStart", "internalServerErrorRate", "serviceUnavailableRate", "goAway", "seed"],
        [
            "development": distribution, "production": distribution, "both": distribution, "connectionStart": distribution,
            "goAway": fields(["share", "after"], ["after": distribution]),
        ]
    )

    static let action = fields(["id", "title", "activation", "destructive", "authenticationRequired", "textInput"])
    static let category = fields(["id", "actions", "customDismissAction"], ["actions": .list(action)])
    static let activity = fields(["attributesType", "attributes", "contentState", "staleDate", "relevanceScore", "pushType", "pushToken", "channelId"], [
        "attributes": .leaf, "contentState": .leaf,
    ])
    static let liveActivities = fields(
        ["enabled", "frequentUpdates", "frequentUpdatesEnabled", "pushToStartToken", "attributesTypes", "activities"], ["activities": .list(activity)]
    )
    static let app = fields(
        ["bundleId", "environment", "deviceToken", "api", "implements", "authorization", "backgroundModes", "categories",
         "willPresentOptions", "serviceExtension", "state", "terminatedBy", "badge", "liveActivities", "voip", "locationPush", "pushToTalk",
         "fileProvider", "widgets", "controls", "complication", "provider", "jpush", "getui"],
        [
            "jpush": fields(["appKey", "registrationId"]), "getui": fields(["appId", "clientId"]),
            "categories": .list(category), "authorization": fields(["status", "alert", "badge", "sound"]), "liveActivities": liveActivities,
            "serviceExtension": fields(["title", "subtitle", "body", "attachment", "seconds", "outcome", "deliversBestAttempt", "communicationSender"]),
            "voip": fields(["token", "reportsCall", "callerKey"]), "locationPush": fields(["token", "entitlement", "authorization"]),
            "pushToTalk": fields(["token", "inChannel", "result"]), "fileProvider": fields(["token"]), "widgets": fields(["token"]),
            "controls": fields(["token"]), "complication": fields(["token", "onActiveWatchFace"]),
            "provider": fields(["baseURL", "requests"], ["requests": .list(fields(["event", "method", "path", "headers", "body", "timeoutSeconds"], [
                "headers": .leaf, "body": .leaf,
            ]))]),
        ]
    )
    static let device = fields(
        ["id", "name", "iosVersion", "online", "locked", "lowPowerMode", "focus", "utcOffsetSeconds", "apps", "mdm"],
        ["apps": .list(app), "mdm": fields(["topic", "token", "pushMagic"])]
    )

    static let scenario = fields(
        ["name", "description", "keys", "apps", "deviceTokens", "generatedDeviceTokens", "channels", "policy", "devices", "generatedDevices",
         "simulator", "clock", "steps", "standIn", "report", "services"],
        [
            "services": fields(["jpush", "getui"], [
                "jpush": .list(fields(ServiceAppSpec.keys, ["apnsKey": fields(ServiceAppSpec.keyKeys)])),
                "getui": .list(fields(ServiceAppSpec.keys, ["apnsKey": fields(ServiceAppSpec.keyKeys)])),
            ]),
            "keys": .list(fields(["keyId", "teamId", "publicKey", "privateKey", "publicKeyPem", "privateKeyPem", "environment", "topics", "relatedKeyId", "revoked"])),
            "apps": .list(fields(["bundleId", "teamId", "broadcastEnabled"])),
            "deviceTokens": .list(fields(["token", "bundleId", "environment", "kind", "state", "since", "device"])),
            "generatedDeviceTokens": .list(fields(["count", "bundleId", "environment", "prefix"])),
            "channels": .list(fields(["id", "bundleId", "environment", "messageStoragePolicy"])),
            // The stand-in's rules and the steps have their own parsers, which name the place.
            "standIn": .leaf,
            "policy": fields(policyKeys + ["latency"], ["latency": latency]),
            "devices": .list(device),
            "generatedDevices": .list(fields(["count", "bundleId", "environment", "prefix", "idPrefix", "api", "state"])),
            // Steps have a shape per kind: their own parser reports unknown keys with the place.
            "clock": fields(["start"]),
            "simulator": fields([
                "backgroundPushesPerHour", "backgroundPushesPerDay", "storageSeconds", "notificationCenterLimit", "liveActivityMaxActiveSeconds",
                "liveActivityLingerSeconds", "liveActivitiesPerApp", "liveActivityUpdatesPerHour", "liveActivityFrequentUpdatesPerHour",
                "pushToStartPerHour", "broadcastStorageSeconds", "voipFailuresBeforeStop", "serviceExtensionSeconds", "widgetReloadsPerDay",
                "complicationPushesPerDay", "providerBackgroundSeconds",
            ]),
        ]
    )

    /// Every key not in the schema, as `path.key` (`devices[0].apps[1].stat`).
    static func unknownKeys(in yaml: String) -> [String] {
        guard let root = try? Yams.compose(yaml: yaml) else { return [] }
        var unknown: [String] = []
        collect(root, shape: scenario, path: "", into: &unknown)
        return unknown
    }

    private static func collect(_ node: Node, shape: Shape, path: String, into unknown: inout [String]) {
        switch shape {
        case .leaf:
            return
        case .list(let element):
            for (index, item) in (node.sequence ?? []).enumerated() {
                collect(item, shape: element, path: "\(path)[\(index)]", into: &unknown)
            }
        case .mapping(let allowed):
            guard let mapping = node.mapping else { return }
            for (keyNode, value) in mapping {
                guard let key = keyNode.string else { continue }
                let keyPath = path.isEmpty ? key : "\(path).\(key)"
                guard let child = allowed[key] else {
                    unknown.append(keyPath)
                    continue
                }
                collect(value, shape: child, path: keyPath, into: &unknown)
            }
        }
    }
}
