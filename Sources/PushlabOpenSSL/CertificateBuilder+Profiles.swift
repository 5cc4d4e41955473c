#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The three shapes of certificate `certs/generate.sh` makes, one per section of its OpenSSL
/// configuration, with the same extensions in the same order and the same syntax.
extension CertificateBuilder {
    /// `[ v3_ca ]`: a root that signs leaves only (`pathlen:0`).
    public static func certificateAuthority(commonName: String, validity: Validity) -> CertificateBuilder {
        CertificateBuilder(
            subject: DistinguishedName([.init(.commonName, commonName)]),
            validity: validity,
            extensions: [
                .configured("basicConstraints", "critical, CA:TRUE, pathlen:0"),
                .configured("keyUsage", "critical, keyCertSign, cRLSign"),
                .configured("subjectKeyIdentifier", "hash"),
                .configured("authorityKeyIdentifier", "keyid:always"),
            ]
        )
    }

    /// `[ v3_server ]`: a TLS server certificate; `names` become the subjectAltName, in order,
    /// `IP:` for addresses and `DNS:` for the rest.
    public static func tlsServer(commonName: String, names: [String], validity: Validity) -> CertificateBuilder {
        let alternativeNames = names.map { (isIPAddress($0) ? "IP:" : "DNS:") + $0 }.joined(separator: ",")
        return CertificateBuilder(
            subject: DistinguishedName([.init(.commonName, commonName)]),
            validity: validity,
            extensions: [
                .configured("basicConstraints", "critical, CA:FALSE"),
                .configured("keyUsage", "critical, digitalSignature"),
                .configured("extendedKeyUsage", "serverAuth"),
                .configured("subjectKeyIdentifier", "hash"),
                .configured("authorityKeyIdentifier", "keyid:always"),
                .configured("subjectAltName", alternativeNames),
            ]
        )
    }

    /// `[ apns_client_* ]`: an "Apple Push Services" client certificate. A nil `topics` leaves
    /// the topic list out, so the subject's UID is the only topic.
    public static func apnsClient(
        subject: DistinguishedName,
        environments: [APNsCertificateExtensions.Environment],
        topics: [APNsCertificateExtensions.Topic]?,
        validity: Validity
    ) -> CertificateBuilder {
        var extensions: [CertificateExtension] = [
            .configured("basicConstraints", "critical, CA:FALSE"),
            .configured("keyUsage", "critical, digitalSignature"),
            .configured("extendedKeyUsage", "clientAuth"),
            .configured("subjectKeyIdentifier", "hash"),
            .configured("authorityKeyIdentifier", "keyid:always"),
            .configured("certificatePolicies", APNsCertificateExtensions.certificatePolicyOID),
        ]
        // Development before production, whatever order the caller gave, as generate.sh writes them.
        for environment in APNsCertificateExtensions.Environment.allCases where environments.contains(environment) {
            extensions.append(.der(oid: environment.oid, critical: false, value: APNsCertificateExtensions.environmentValue))
        }
        if let topics {
            extensions.append(.der(
                oid: APNsCertificateExtensions.topicsOID, critical: false,
                value: APNsCertificateExtensions.topicListValue(topics)
            ))
        }
        return CertificateBuilder(subject: subject, validity: validity, extensions: extensions)
    }

    private static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }
}
