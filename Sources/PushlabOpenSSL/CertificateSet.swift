/// The test PKI `pushlab certs` makes, as `certs/generate.sh` makes it: the same members, file
/// names, subjects, key types, extensions and lifetimes, so the mock's certificate auth treats both
/// alike. Values in, certificates out; reading and writing files is the command line's business.
public struct CertificateSet: Sendable {
    public static let authorityFile = "ca.pem"
    public static let authorityKeyFile = "ca-key.pem"
    public static let serverChainFile = "server-chain.pem"
    public static let clientCombinedFile = "client-combined.pem"

    public static let authorityLifetimeDays = 3650
    /// The most Apple's TLS clients accept for a server certificate; clients get the same.
    public static let leafLifetimeDays = 825
    /// A certificate that expires sooner than this is not kept but reissued.
    public static let renewalMarginSeconds: Int64 = 30 * 86_400

    public static let authorityCommonName = "Pushlab Test CA (for testing only)"
    static let untrustedAuthorityCommonName = "Pushlab Untrusted Throwaway CA (for testing only, NOT ca.pem)"
    static let serverCommonName = "localhost"
    /// Loopback, Apple's host names (the provider API, broadcast and channel management), and the
    /// hosts of the JPush and GeTui APIs Pushlab stands in for, so clients that insist on those
    /// names can be pointed at the mock (`curl --resolve`, /etc/hosts).
    public static let serverNames = [
        "localhost", "127.0.0.1", "::1",
        "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com",
        "api-broadcast.push.apple.com", "api-broadcast.sandbox.push.apple.com",
        "api-manage-broadcast.push.apple.com", "api-manage-broadcast.sandbox.push.apple.com",
        "api.jpush.cn", "device.jpush.cn", "report.jpush.cn", "restapi.getui.com",
    ]
    /// 2020-01-01T00:00:00Z to 2021-01-01T00:00:00Z, as generate.sh's expired certificate.
    static let expiredValidity = CertificateBuilder.Validity.between(notBefore: 1_577_836_800, notAfter: 1_609_459_200)

    public let identity: APNsClientIdentity

    public init(identity: APNsClientIdentity) {
        self.identity = identity
    }

    /// A new self-signed test CA, EC P-256, valid ten years.
    public func makeAuthority() throws -> CertificateWithKey {
        try CertificateBuilder
            .certificateAuthority(commonName: Self.authorityCommonName, validity: .days(Self.authorityLifetimeDays))
            .issue(withNewKey: PrivateKey.generateP256, issuer: nil)
    }

    /// A new key and certificate for `member`, signed by `authority` (except
    /// `clientUntrusted`, which a throwaway CA signs and whose key is then forgotten).
    public func issue(_ member: Member, by authority: CertificateWithKey) throws -> CertificateWithKey {
        switch member {
        case .server:
            return try CertificateBuilder
                .tlsServer(commonName: Self.serverCommonName, names: Self.serverNames, validity: .days(Self.leafLifetimeDays))
                .issue(withNewKey: PrivateKey.generateP256, issuer: authority)
        case .clientUntrusted:
            let throwaway = try CertificateBuilder
                .certificateAuthority(commonName: Self.untrustedAuthorityCommonName, validity: .days(Self.authorityLifetimeDays))
                .issue(withNewKey: PrivateKey.generateP256, issuer: nil)
            return try clientBuilder(member).issue(withNewKey: { try PrivateKey.generateRSA() }, issuer: throwaway)
        default:
            return try clientBuilder(member).issue(withNewKey: { try PrivateKey.generateRSA() }, issuer: authority)
        }
    }

    /// The subject `member`'s certificate has.
    public func subject(of member: Member) -> DistinguishedName {
        member == .server ? DistinguishedName([.init(.commonName, Self.serverCommonName)]) : identity.subject
    }

    /// The topic list `member`'s certificate carries, or nil when it has none.
    public func topics(of member: Member) -> [APNsCertificateExtensions.Topic]? {
        member.listsTopics ? APNsCertificateExtensions.Topic.appVoIPAndComplication(of: identity.bundleID) : nil
    }

    private func clientBuilder(_ member: Member) -> CertificateBuilder {
        .apnsClient(
            subject: identity.subject,
            environments: member.environments,
            topics: topics(of: member),
            validity: member == .clientExpired ? Self.expiredValidity : .days(Self.leafLifetimeDays)
        )
    }
}
