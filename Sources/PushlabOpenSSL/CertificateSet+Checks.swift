/// Whether files already in the output folder can stay: the same questions generate.sh asks
/// before it keeps a file, plus the APNs extensions, so a certificate made for another bundle id,
/// team or CA is never taken for the one asked for.
extension CertificateSet {
    /// Why `certificate` cannot sign this set, or nil when it can: it must be a self-signed CA
    /// that is valid now. (Any such CA will do, not only one `pushlab certs` made.)
    public static func problem(withAuthority certificate: X509Certificate) -> String? {
        guard certificate.isCertificateAuthority else { return "\(authorityFile) is not a CA certificate (no basicConstraints CA:TRUE)" }
        let selfCheck = certificate.verification(trusting: certificate)
        guard selfCheck.isTrusted else { return "\(authorityFile) is not a usable self-signed CA: \(selfCheck)" }
        return nil
    }

    /// Why the existing `certificate` is not one `issue(member, by:)` could have made with
    /// `authority` (so keeping it would be wrong), or nil when it can stay. `now` is seconds since
    /// 1970. The key is checked by the caller, which knows both files.
    public func problem(with certificate: X509Certificate, as member: Member, authority: X509Certificate, now: Int64) -> String? {
        let expected = subject(of: member).oidsAndValues
        let actual = certificate.subjectEntries
        guard actual == expected else {
            // Name only what differs when the attributes are the same ones: usually the bundle id.
            let differing = actual.map(\.oid) == expected.map(\.oid) ? zip(actual, expected).filter { $0 != $1 } : Array(zip(actual, expected))
            let (has, wanted) = differing.isEmpty ? (actual, expected) : (differing.map(\.0), differing.map(\.1))
            return "its subject has \(Self.render(has)) (asked for: \(Self.render(wanted)))"
        }
        let purpose: X509Certificate.Purpose = member == .server ? .tlsServer : .tlsClient
        switch member {
        case .clientExpired:
            let signature = certificate.verification(trusting: authority, purpose: purpose, checkingTime: false)
            guard signature.isTrusted else { return "it is not signed by \(Self.authorityFile) (\(signature))" }
            guard certificate.validity.notAfter < now else { return "it has not expired" }
        case .clientUntrusted:
            guard !certificate.verification(trusting: authority, purpose: purpose, checkingTime: false).isTrusted else {
                return "it is signed by \(Self.authorityFile), so it is not untrusted"
            }
        default:
            let verification = certificate.verification(trusting: authority, purpose: purpose)
            guard verification.isTrusted else { return "it does not verify against \(Self.authorityFile) (\(verification))" }
        }
        if member != .clientExpired, certificate.expires(within: Self.renewalMarginSeconds, of: now) {
            return "it expires within 30 days"
        }
        if member == .server {
            if let missing = Self.serverNames.first(where: { !certificate.matches(host: $0) }) {
                return "it is not valid for \(missing)"
            }
            return nil
        }
        return problemWithAPNsExtensions(of: certificate, as: member)
    }

    private func problemWithAPNsExtensions(of certificate: X509Certificate, as member: Member) -> String? {
        for environment in APNsCertificateExtensions.Environment.allCases {
            let expected = member.environments.contains(environment) ? APNsCertificateExtensions.environmentValue : nil
            guard certificate.extensionValue(oid: environment.oid) == expected else {
                return expected == nil ? "it allows the \(environment) environment" : "it does not allow the \(environment) environment"
            }
        }
        let expectedTopics = topics(of: member).map(APNsCertificateExtensions.topicListValue)
        guard certificate.extensionValue(oid: APNsCertificateExtensions.topicsOID) == expectedTopics else {
            return expectedTopics == nil ? "it has a topic list" : "its topic list is not app/voip/complication of \(identity.bundleID)"
        }
        return nil
    }

    private static func render(_ entries: [SubjectEntry]) -> String {
        let names = [
            DistinguishedName.Attribute.userID.oid: "UID", DistinguishedName.Attribute.commonName.oid: "CN",
            DistinguishedName.Attribute.organizationalUnit.oid: "OU", DistinguishedName.Attribute.organization.oid: "O",
            DistinguishedName.Attribute.country.oid: "C",
        ]
        return entries.map { "\(names[$0.oid] ?? $0.oid)=\($0.value)" }.joined(separator: ", ")
    }
}
