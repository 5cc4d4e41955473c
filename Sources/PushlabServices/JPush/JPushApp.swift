import PushlabCore

/// An app registered with JPush: its portal credentials and the APNs credentials uploaded to the
/// portal. The push's `apns_production` picks the APNs environment; the credentials and the
/// phone's token must be of that environment too (the "three consistent" of JPush's iOS guide),
/// or APNs refuses the push and the report says so.
public struct JPushApp: Sendable, Equatable {
    public var appKey: String
    public var masterSecret: String
    public var bundleID: String
    public var apnsCredential: APNsCredential

    public init(appKey: String, masterSecret: String, bundleID: String, apnsCredential: APNsCredential) {
        self.appKey = appKey
        self.masterSecret = masterSecret
        self.bundleID = bundleID
        self.apnsCredential = apnsCredential
    }

    /// `Authorization: Basic base64(appKey:masterSecret)`, as JPush checks it: the app it names,
    /// or the refusal (1004 for a wrong secret and for an unknown key alike).
    public static func authenticate(_ header: String?, among apps: [JPushApp]) -> Result<JPushApp, JPushError> {
        guard let header, let (key, secret) = BasicAuthorization.credentials(header) else {
            return .failure(JPushError(.authenticationFailed))
        }
        guard let app = apps.first(where: { $0.appKey == key }), app.masterSecret == secret else {
            return .failure(JPushError(.authenticationFailed))
        }
        return .success(app)
    }
}

/// The APNs credentials uploaded to a push service's portal for an app: a certificate (a `.p12`
/// with its password, or PEM certificate and key files), whose environment APNs judges, or a
/// signing key (`.p8`) with its key and team ids, good for both environments.
public enum APNsCredential: Sendable, Equatable {
    case certificate(path: String, keyPath: String?, password: String?)
    case signingKey(path: String, keyID: String, teamID: String)
}

/// HTTP Basic credentials, read as JPush reads them (the scheme's name in any case).
public enum BasicAuthorization {
    public static func credentials(_ header: String) -> (user: String, password: String)? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic", let decoded = Base64.decode(String(parts[1])) else { return nil }
        let text = String(decoding: decoded, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    public static func header(user: String, password: String) -> String {
        "Basic " + Base64.encode(Array("\(user):\(password)".utf8))
    }
}
