import COpenSSL

/// An `SSL_CTX`: certificates, trust and protocol choices shared by every connection of a listener.
///
/// OpenSSL documents `SSL_CTX` as safe to share between threads once configured, which is why
/// this is `Sendable`: it is never mutated after `init`.
public final class TLSContext: @unchecked Sendable {
    public enum Role: Sendable { case server, client }

    let pointer: OpaquePointer
    public let role: Role

    /// The one protocol a server context agrees to in ALPN.
    public enum ServerProtocol: Sendable { case http2, http1_1 }

    /// A server context: TLS 1.2 and 1.3, ALPN `h2` only (or `http/1.1` only), and an optional
    /// client certificate requested (never required) and checked against `clientCertificateAuthorities`.
    public init(
        serverCertificateChainFile: String,
        privateKeyFile: String,
        clientCertificateAuthoritiesFile: String? = nil,
        protocol: ServerProtocol = .http2
    ) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw OpenSSLError("SSL_CTX_new") }
        self.pointer = context
        self.role = .server
        try configureCommon()
        guard SSL_CTX_use_certificate_chain_file(context, serverCertificateChainFile) == 1 else {
            throw OpenSSLError("loading server certificate \(serverCertificateChainFile)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw OpenSSLError("loading server private key \(privateKeyFile)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw OpenSSLError("matching server certificate and key")
        }
        switch `protocol` {
        case .http2: pushlab_SSL_CTX_select_alpn_h2(context)
        case .http1_1: pushlab_SSL_CTX_select_alpn_http11(context)
        }
        // Session tickets let load-testing clients resume cheaply, as they would against Apple.
        _ = pushlab_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_SERVER))
        if let caFile = clientCertificateAuthoritiesFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw OpenSSLError("loading client certificate authorities \(caFile)")
            }
            if let names = SSL_load_client_CA_file(caFile) {
                SSL_CTX_set_client_CA_list(context, names)
            }
        }
        // Requested whether or not a CA is configured: a certificate means certificate auth,
        // and with no trusted CA it is reported as unverified rather than refused.
        pushlab_SSL_CTX_request_client_certificate(context)
        let sessionContext: [UInt8] = Array("pushlab".utf8)
        _ = SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
    }

    /// A client context, for tests and for `pushlab send`: verifies the server against
    /// `trustedCertificatesFile` (or the system store), offers `alpn` if given, and presents
    /// a client certificate if given: PEM files, or a PKCS#12 `certificateFile` (told by its
    /// content) opened with `certificatePassword`.
    public init(
        trustedCertificatesFile: String? = nil,
        verifyServer: Bool = true,
        certificateFile: String? = nil,
        privateKeyFile: String? = nil,
        certificatePassword: String? = nil,
        alpn: [String] = ["h2"]
    ) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw OpenSSLError("SSL_CTX_new") }
        self.pointer = context
        self.role = .client
        try configureCommon()
        if verifyServer {
            if let trusted = trustedCertificatesFile {
                guard SSL_CTX_load_verify_locations(context, trusted, nil) == 1 else {
                    throw OpenSSLError("loading trusted certificates \(trusted)")
                }
            } else {
                SSL_CTX_set_default_verify_paths(context)
            }
            pushlab_SSL_CTX_verify_server(context)
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        if let certificateFile, PKCS12Archive.isPKCS12(file: certificateFile) {
            let identity = try PKCS12Archive(file: certificateFile, password: certificatePassword ?? "").identity
            // Both calls take their own reference; the wrappers free theirs.
            guard SSL_CTX_use_certificate(context, identity.certificate.pointer) == 1,
                  SSL_CTX_use_PrivateKey(context, identity.key.pointer) == 1 else {
                throw OpenSSLError("using the client certificate of \(certificateFile)")
            }
        } else if let certificateFile {
            guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
                throw OpenSSLError("loading client certificate \(certificateFile)")
            }
            guard SSL_CTX_use_PrivateKey_file(context, privateKeyFile ?? certificateFile, SSL_FILETYPE_PEM) == 1 else {
                throw OpenSSLError("loading client private key \(privateKeyFile ?? certificateFile)")
            }
        }
        if !alpn.isEmpty {
            var wire: [UInt8] = []
            for name in alpn {
                wire.append(UInt8(name.utf8.count))
                wire.append(contentsOf: name.utf8)
            }
            guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
                throw OpenSSLError("setting ALPN")
            }
        }
    }

    private func configureCommon() throws {
        guard pushlab_SSL_CTX_set_min_proto_version(pointer, TLS1_2_VERSION) == 1 else {
            throw OpenSSLError("setting minimum TLS version")
        }
        _ = pushlab_SSL_CTX_set_ecdh_auto(pointer)
    }

    deinit {
        SSL_CTX_free(pointer)
    }
}
