/// Apple's extensions on "Apple Push Services" client certificates, encoded as
/// `certs/generate.sh` encodes them (its `[ apns_client_* ]` and `[ apns_topics ]` sections).
public enum APNsCertificateExtensions {
    /// The environments a certificate may connect to: one extension each, value ASN.1 NULL
    /// (only its presence means anything).
    public enum Environment: String, CaseIterable, Sendable {
        case development
        case production

        public var oid: String {
            switch self {
            case .development: "1.2.840.113635.100.6.3.1"
            case .production: "1.2.840.113635.100.6.3.2"
            }
        }
    }

    /// The topic list: `SEQUENCE { UTF8String topic, SEQUENCE { UTF8String type }, … }`.
    public static let topicsOID = "1.2.840.113635.100.6.3.6"
    /// Apple's certificate policy, in `certificatePolicies` (informational here).
    public static let certificatePolicyOID = "1.2.840.113635.100.5.1"

    /// One topic of the list and its type (`app`, `voip`, `complication`).
    public struct Topic: Equatable, Sendable {
        public var name: String
        public var type: String

        public init(_ name: String, type: String) {
            self.name = name
            self.type = type
        }

        /// What generate.sh lists: the app, its VoIP topic and its complication topic.
        public static func appVoIPAndComplication(of bundleID: String) -> [Topic] {
            [Topic(bundleID, type: "app"), Topic(bundleID + ".voip", type: "voip"),
             Topic(bundleID + ".complication", type: "complication")]
        }
    }

    /// The DER value of an environment extension: ASN.1 NULL.
    public static let environmentValue = DERWriter.null

    /// The DER value of the topic-list extension.
    public static func topicListValue(_ topics: [Topic]) -> [UInt8] {
        DERWriter.sequence(topics.flatMap { [DERWriter.utf8String($0.name), DERWriter.sequence([DERWriter.utf8String($0.type)])] })
    }
}
