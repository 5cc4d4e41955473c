import Yams

/// The keys a scenario file may use, so that a misspelling is an error instead of a silently
/// ignored setting.
enum ScenarioSchema {
    static let topLevel: Set<String> = ["name", "description", "keys", "apps", "deviceTokens", "generatedDeviceTokens", "policy"]
    static let entries: [String: Set<String>] = [
        "keys": ["keyId", "teamId", "publicKey", "publicKeyPem", "privateKeyPem", "environment", "topics", "relatedKeyId", "revoked"],
        "apps": ["bundleId", "teamId"],
        "deviceTokens": ["token", "bundleId", "environment", "kind", "state", "since", "device"],
        "generatedDeviceTokens": ["count", "bundleId", "environment", "prefix"],
    ]
    static let policy: Set<String> = [
        "checkOrder", "maxConcurrentStreams", "streamsBeforeFirstValidToken", "throttleStreamsAfterRejection",
        "deviceTokenFormat", "acceptUnknownDeviceTokens", "strictBackgroundPriority", "strictPayload", "strictApnsIDCase",
        "providerTokenLifetimeSeconds", "providerTokenFutureSkewSeconds", "providerTokenUpdateWindowSeconds",
        "providerTokenUpdateAllowance", "environmentKeyReason", "multiTopicCertificateDefaultsToAppTopic",
        "deviceTokenRateLimit", "errorBudgetPerConnection", "badDeviceTokenErrorWeight", "idleTimeoutSeconds",
        "sendUniqueIDInDevelopment",
    ]

    /// Every key not in the schema, as `path.key`.
    static func unknownKeys(in yaml: String) -> [String] {
        guard let root = try? Yams.compose(yaml: yaml), let mapping = root.mapping else { return [] }
        var unknown: [String] = []
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else { continue }
            guard topLevel.contains(key) else {
                unknown.append(key)
                continue
            }
            if key == "policy", let policyMapping = value.mapping {
                for policyKey in policyMapping.keys.compactMap(\.string) where !policy.contains(policyKey) {
                    unknown.append("policy.\(policyKey)")
                }
            }
            if let allowed = entries[key], let sequence = value.sequence {
                for (index, entry) in sequence.enumerated() {
                    for entryKey in entry.mapping?.keys.compactMap(\.string) ?? [] where !allowed.contains(entryKey) {
                        unknown.append("\(key)[\(index)].\(entryKey)")
                    }
                }
            }
        }
        return unknown
    }
}
