extension CertificateSet {
    /// One certificate of the set besides the CA; the raw value is its file name without `.pem`.
    public enum Member: String, CaseIterable, Sendable {
        /// The mock's TLS server certificate.
        case server
        /// Both environments and a topic list (app, VoIP, complication): the "universal" kind.
        case client
        case clientDevelopment = "client-development"
        case clientProduction = "client-production"
        /// Both environments, no topic list: the subject's UID is the only topic.
        case clientSingleTopic = "client-single-topic"
        /// Like `client`, but valid only during 2020: must be refused as expired.
        case clientExpired = "client-expired"
        /// Like `client`, but signed by a CA that is not `ca.pem`: must be refused.
        case clientUntrusted = "client-untrusted"

        public var certificateFile: String { rawValue + ".pem" }
        public var keyFile: String { rawValue + "-key.pem" }

        /// The environment extensions the certificate carries (none for the server).
        public var environments: [APNsCertificateExtensions.Environment] {
            switch self {
            case .server: []
            case .clientDevelopment: [.development]
            case .clientProduction: [.production]
            case .client, .clientSingleTopic, .clientExpired, .clientUntrusted: [.development, .production]
            }
        }

        var listsTopics: Bool { self != .server && self != .clientSingleTopic }

        /// What the first comment line calls it.
        var kind: String { self == .server ? "server certificate" : "APNs client certificate" }

        /// The second comment line of the certificate file, generate.sh's words.
        func summary(bundleID: String) -> String {
            switch self {
            case .server:
                "TLS server certificate for the Pushlab APNs mock (localhost, 127.0.0.1, ::1, api[.sandbox|.development].push.apple.com)"
            case .client:
                "APNs client cert for \(bundleID), development+production, topics app/voip/complication"
            case .clientDevelopment:
                "APNs client cert for \(bundleID), development (sandbox) only, topics app/voip/complication"
            case .clientProduction:
                "APNs client cert for \(bundleID), production only, topics app/voip/complication"
            case .clientSingleTopic:
                "APNs client cert for \(bundleID), both environments, no topic list (topic = UID)"
            case .clientExpired:
                "EXPIRED APNs client cert for \(bundleID) (valid 2020-01-01..2021-01-01 only)"
            case .clientUntrusted:
                "UNTRUSTED APNs client cert for \(bundleID), signed by a throwaway CA that is not ca.pem"
            }
        }
    }
}
