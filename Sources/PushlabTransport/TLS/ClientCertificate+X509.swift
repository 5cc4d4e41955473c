import PushlabCore
import PushlabOpenSSL

/// What the APNs rules see of a client certificate: read from the peer's X.509 certificate and
/// the verdict of its verification, once, when the TLS handshake completes.
extension ClientCertificate {
    init(_ certificate: X509Certificate, verification: CertificateVerification) {
        let validity = certificate.validity
        var extensions: [String: [UInt8]] = [:]
        for oid in ClientCertificate.apnsExtensionOIDs {
            if let value = certificate.extensionValue(oid: oid) { extensions[oid] = value }
        }
        self.init(
            subject: certificate.subject,
            userIDs: certificate.subjectValues(oid: "0.9.2342.19200300.100.1.1"),
            extensions: extensions,
            notBefore: validity.notBefore,
            notAfter: validity.notAfter,
            isTrusted: verification.isTrusted,
            verificationError: verification.isTrusted ? nil : verification.description
        )
    }
}
