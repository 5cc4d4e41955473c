import COpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything that goes into one X.509 v3 certificate, as plain values; `issue` makes and signs
/// it in one go, so no half-built OpenSSL object outlives the call.
public struct CertificateBuilder: Sendable {
    public enum Validity: Sendable, Equatable {
        /// From now for this many days, as `openssl x509 -days`.
        case days(Int)
        /// Fixed dates in seconds since 1970 (the expired test certificate).
        case between(notBefore: Int64, notAfter: Int64)
    }

    public var subject: DistinguishedName
    public var validity: Validity
    /// In certificate order. `subjectKeyIdentifier` must come before `authorityKeyIdentifier`
    /// on a self-signed CA, whose authority key id is its own subject key id.
    public var extensions: [CertificateExtension]

    public init(subject: DistinguishedName, validity: Validity, extensions: [CertificateExtension]) {
        self.subject = subject
        self.validity = validity
        self.extensions = extensions
    }

    /// The certificate for `subjectKey`'s public half, with a random 128-bit serial, signed with
    /// SHA-256 by `issuer`, or by `subjectKey` itself when `issuer` is nil (a root CA).
    public func issue(for subjectKey: PrivateKey, issuer: CertificateWithKey?) throws -> X509Certificate {
        guard let certificate = X509_new() else { throw OpenSSLError("X509_new") }
        do {
            try fill(certificate, subjectKey: subjectKey, issuer: issuer)
            let signingKey = issuer?.key ?? subjectKey
            guard X509_sign(certificate, signingKey.pointer, EVP_sha256()) > 0 else {
                throw OpenSSLError("signing the certificate")
            }
            return X509Certificate(taking: certificate)
        } catch {
            X509_free(certificate)
            throw error
        }
    }

    /// Convenience for a pair: a new key from `makeKey`, and its certificate.
    public func issue(
        withNewKey makeKey: () throws -> PrivateKey, issuer: CertificateWithKey?
    ) throws -> CertificateWithKey {
        let key = try makeKey()
        return try CertificateWithKey(certificate: issue(for: key, issuer: issuer), key: key)
    }

    private func fill(_ certificate: OpaquePointer, subjectKey: PrivateKey, issuer: CertificateWithKey?) throws {
        guard X509_set_version(certificate, Int(X509_VERSION_3)) == 1 else { throw OpenSSLError("X509_set_version") }
        try setRandomSerial(certificate)
        try subject.append(to: X509_get_subject_name(certificate))
        let issuerName = issuer.map { X509_get_subject_name($0.certificate.pointer) } ?? X509_get_subject_name(certificate)
        guard X509_set_issuer_name(certificate, issuerName) == 1 else { throw OpenSSLError("X509_set_issuer_name") }
        try setValidity(certificate)
        guard X509_set_pubkey(certificate, subjectKey.pointer) == 1 else { throw OpenSSLError("X509_set_pubkey") }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.certificate.pointer ?? certificate, certificate, nil, nil, 0)
        // OpenSSL parses some extensions (certificatePolicies) only with a configuration database
        // at hand, even when the value names no section; an empty one is enough.
        guard let configuration = NCONF_new(nil) else { throw OpenSSLError("NCONF_new") }
        defer { NCONF_free(configuration) }
        X509V3_set_nconf(&context, configuration)
        guard X509V3_set_issuer_pkey(&context, (issuer?.key ?? subjectKey).pointer) == 1 else {
            throw OpenSSLError("X509V3_set_issuer_pkey")
        }
        for certificateExtension in extensions {
            try certificateExtension.add(to: certificate, context: &context)
        }
    }

    private func setRandomSerial(_ certificate: OpaquePointer) throws {
        guard let number = BN_new() else { throw OpenSSLError("BN_new") }
        defer { BN_free(number) }
        // `openssl rand -hex 16`, as generate.sh's serials.
        guard BN_rand(number, 128, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1,
              BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil else {
            throw OpenSSLError("setting a random serial number")
        }
    }

    private func setValidity(_ certificate: OpaquePointer) throws {
        let notBefore = X509_getm_notBefore(certificate), notAfter = X509_getm_notAfter(certificate)
        let set: Bool
        switch validity {
        case .days(let days):
            set = X509_gmtime_adj(notBefore, 0) != nil && X509_time_adj_ex(notAfter, Int32(clamping: days), 0, nil) != nil
        case .between(let start, let end):
            set = ASN1_TIME_set(notBefore, time_t(start)) != nil && ASN1_TIME_set(notAfter, time_t(end)) != nil
        }
        guard set else { throw OpenSSLError("setting the validity dates") }
    }
}
