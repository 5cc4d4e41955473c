import COpenSSL

extension X509Certificate {
    /// What the certificate is checked for, as `openssl verify -purpose` names it.
    public enum Purpose: Sendable {
        case any
        case tlsServer
        case tlsClient

        var openSSLPurpose: Int32? {
            switch self {
            case .any: nil
            case .tlsServer: X509_PURPOSE_SSL_SERVER
            case .tlsClient: X509_PURPOSE_SSL_CLIENT
            }
        }
    }

    /// Checks the chain from this certificate to `authority` (the only trusted root, no
    /// intermediates), as `openssl verify -CAfile` does. `checkingTime: false` ignores validity
    /// dates, to tell "signed by this CA but expired" from "not signed by this CA".
    public func verification(
        trusting authority: X509Certificate, purpose: Purpose = .any, checkingTime: Bool = true
    ) -> CertificateVerification {
        defer { OpenSSLError.drainErrorQueue() }
        guard let store = X509_STORE_new() else { return CertificateVerification(code: Int(X509_V_ERR_OUT_OF_MEM)) }
        defer { X509_STORE_free(store) }
        guard X509_STORE_add_cert(store, authority.pointer) == 1,  // the store takes its own reference
              let context = X509_STORE_CTX_new() else {
            return CertificateVerification(code: Int(X509_V_ERR_OUT_OF_MEM))
        }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, pointer, nil) == 1 else {
            return CertificateVerification(code: Int(X509_V_ERR_UNSPECIFIED))
        }
        if let openSSLPurpose = purpose.openSSLPurpose { _ = X509_STORE_CTX_set_purpose(context, openSSLPurpose) }
        if !checkingTime { X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_NO_CHECK_TIME)) }
        if X509_verify_cert(context) == 1 { return CertificateVerification(code: Int(X509_V_OK)) }
        return CertificateVerification(code: Int(X509_STORE_CTX_get_error(context)))
    }

    /// Whether this is a CA certificate (basicConstraints `CA:TRUE`, or an old v1 self-signed root).
    public var isCertificateAuthority: Bool {
        X509_check_ca(pointer) >= 1
    }

    /// Whether a TLS client connecting to `host` (a DNS name or an IPv4 / IPv6 address) would
    /// accept this certificate's names, as curl and OpenSSL's own host check do.
    public func matches(host: String) -> Bool {
        defer { OpenSSLError.drainErrorQueue() }
        let asAddress = X509_check_ip_asc(pointer, host, 0)
        if asAddress >= 0 { return asAddress == 1 }  // -1: not an IP address, so a host name
        return X509_check_host(pointer, host, host.utf8.count, 0, nil) == 1
    }

    /// Whether the certificate expires within `seconds` of `now` (seconds since 1970).
    public func expires(within seconds: Int64, of now: Int64) -> Bool {
        validity.notAfter <= now + seconds
    }
}
