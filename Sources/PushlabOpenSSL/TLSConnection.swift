import COpenSSL

/// One TLS connection driven entirely through memory: ciphertext is fed in and drained out
/// by the caller (a NIO channel handler), so OpenSSL never touches a socket.
///
/// Not thread-safe: it belongs to the one event loop that owns its channel.
public final class TLSConnection {
    public enum HandshakeProgress: Equatable, Sendable {
        case complete
        case needsMoreData
    }

    public enum ReadResult: Equatable, Sendable {
        /// `count` plaintext bytes were written into the buffer.
        case bytes(Int)
        /// No complete record is buffered: feed more ciphertext.
        case needsMoreData
        /// The peer sent close_notify.
        case closed
    }

    public let context: TLSContext
    private let ssl: OpaquePointer
    /// Ciphertext from the network: OpenSSL reads it in place from bytes lent by `receiving`
    /// (ciphertext_source.h), with no copy into a memory BIO.
    private let networkIn: OpaquePointer
    /// Ciphertext for the network; OpenSSL writes it.
    private let networkOut: OpaquePointer

    public init(context: TLSContext, serverName: String? = nil) throws {
        guard let ssl = SSL_new(context.pointer) else { throw OpenSSLError("SSL_new") }
        guard let networkIn = pushlab_ciphertext_source_new() else {
            SSL_free(ssl)
            throw OpenSSLError("BIO_new")
        }
        guard let networkOut = BIO_new(BIO_s_mem()) else {
            BIO_free(networkIn)
            SSL_free(ssl)
            throw OpenSSLError("BIO_new")
        }
        // An empty memory BIO must mean "retry later", not end of file.
        pushlab_BIO_set_mem_eof_return(networkOut, -1)
        SSL_set_bio(ssl, networkIn, networkOut)  // the SSL now owns both BIOs
        self.context = context
        self.ssl = ssl
        self.networkIn = networkIn
        self.networkOut = networkOut
        switch context.role {
        case .server:
            SSL_set_accept_state(ssl)
        case .client:
            SSL_set_connect_state(ssl)
            if let serverName {
                _ = pushlab_SSL_set_tlsext_host_name(ssl, serverName)
                SSL_set1_host(ssl, serverName)
            }
        }
    }

    deinit {
        pushlab_SSL_free_rejected_certificate(ssl)
        SSL_free(ssl)
    }

    // MARK: Ciphertext in and out

    /// Lends ciphertext received from the network to OpenSSL while `body` runs: the handshake
    /// steps and reads inside it decrypt straight from `bytes`. Whatever they leave unread is
    /// copied and read first next time.
    public func receiving<Result>(_ bytes: UnsafeRawBufferPointer, _ body: () throws -> Result) rethrows -> Result {
        pushlab_ciphertext_source_lend(networkIn, bytes.baseAddress, bytes.count)
        defer {
            // Out of memory for the unread rest: the stream could not go on without those bytes.
            guard pushlab_ciphertext_source_end_loan(networkIn) == 1 else { fatalError("out of memory keeping TLS ciphertext") }
        }
        return try body()
    }

    /// Hands ciphertext to OpenSSL to be read by later calls (kept as a copy).
    public func feedCiphertext(_ bytes: UnsafeRawBufferPointer) {
        receiving(bytes) {}
    }

    /// Ciphertext OpenSSL has produced and not yet handed out.
    public var pendingCiphertextCount: Int { Int(BIO_ctrl_pending(networkOut)) }

    /// Moves up to `buffer.count` bytes of pending ciphertext into `buffer`; returns how many.
    public func drainCiphertext(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let read = BIO_read(networkOut, base, Int32(min(buffer.count, Int(Int32.max))))
        return read > 0 ? Int(read) : 0
    }

    // MARK: Handshake

    public func handshake() throws -> HandshakeProgress {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .complete }
        let error = SSL_get_error(ssl, result)
        switch error {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .needsMoreData
        default:
            throw OpenSSLError("TLS handshake")
        }
    }

    public var isHandshakeComplete: Bool { SSL_is_init_finished(ssl) == 1 }

    // MARK: Plaintext

    /// Decrypts buffered records into `buffer`.
    public func readPlaintext(into buffer: UnsafeMutableRawBufferPointer) throws -> ReadResult {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .needsMoreData }
        var readCount = 0
        let result = SSL_read_ex(ssl, base, buffer.count, &readCount)
        if result == 1 { return .bytes(readCount) }
        switch SSL_get_error(ssl, 0) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .needsMoreData
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        default:
            throw OpenSSLError("TLS read")
        }
    }

    /// Encrypts `bytes`; the records then wait in `drainCiphertext`.
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        var offset = 0
        while offset < bytes.count {
            var written = 0
            guard SSL_write_ex(ssl, base + offset, bytes.count - offset, &written) == 1 else {
                throw OpenSSLError("TLS write")
            }
            offset += written
        }
    }

    /// Queues a close_notify alert.
    public func shutdown() {
        if isHandshakeComplete { _ = SSL_shutdown(ssl) }
        OpenSSLError.drainErrorQueue()
    }

    // MARK: What was negotiated

    public var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The SNI host name the client asked for.
    public var serverName: String? {
        guard let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else { return nil }
        return String(cString: name)
    }

    public var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// The certificate the peer presented, verified or not (see `peerVerification`).
    public var peerCertificate: X509Certificate? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        return X509Certificate(taking: certificate)
    }

    /// The server certificate a client's check refused (untrusted, expired, another host name),
    /// kept after the failed handshake to say whose it was; nil when none was refused.
    public var rejectedPeerCertificate: X509Certificate? {
        guard let certificate = pushlab_SSL_get0_rejected_certificate(ssl), X509_up_ref(certificate) == 1 else { return nil }
        return X509Certificate(taking: certificate)
    }

    /// The result of checking the peer's chain against the trusted authorities.
    public var peerVerification: CertificateVerification {
        CertificateVerification(code: Int(SSL_get_verify_result(ssl)))
    }
}

/// OpenSSL's verdict on a peer's certificate chain.
public struct CertificateVerification: Equatable, Sendable, CustomStringConvertible {
    public let code: Int
    public var isTrusted: Bool { code == Int(X509_V_OK) }
    public var isExpired: Bool { code == Int(X509_V_ERR_CERT_HAS_EXPIRED) }
    public var isNotYetValid: Bool { code == Int(X509_V_ERR_CERT_NOT_YET_VALID) }
    /// The chain is trusted, but the certificate does not carry the name (or address) asked for.
    public var isNameMismatch: Bool { code == Int(X509_V_ERR_HOSTNAME_MISMATCH) || code == Int(X509_V_ERR_IP_ADDRESS_MISMATCH) }
    public var description: String { String(cString: X509_verify_cert_error_string(code)) }
}
