import PushlabCore

extension SigningKey {
    /// The key without its material: a public key is not secret, but nothing is echoed.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("keyId", keyID)
        fields.add("teamId", teamID)
        fields.add("environment", EnvironmentChoice(environments).rawValue)
        if case .topics(let topics) = scope { fields.add("topics", strings: topics.sorted()) }
        fields.add("relatedKeyId", relatedKeyID)
        if isRevoked { fields.add("revoked", true) }
        return fields.json
    }
}

extension AppRecord {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("bundleId", bundleID)
        fields.add("teamId", teamID)
        fields.add("broadcastEnabled", broadcastEnabled)
        return fields.json
    }
}

/// Where a key works: one environment or both.
enum EnvironmentChoice: String, CaseIterable, Sendable {
    case development, production, both

    init(_ environments: Set<APNsEnvironment>) {
        switch environments {
        case [.development]: self = .development
        case [.production]: self = .production
        default: self = .both
        }
    }

    var environments: Set<APNsEnvironment> {
        switch self {
        case .development: [.development]
        case .production: [.production]
        case .both: [.development, .production]
        }
    }
}
