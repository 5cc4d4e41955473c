import COpenSSL

/// A PKCS#12 file (`.p12`): a certificate with its private key, and the CA certificates that go
/// with it, under one password; what Keychain Access exports and PushMeBaby- or Knuff-style
/// senders import.
public struct PKCS12Archive: Sendable {
    public let identity: CertificateWithKey
    public let authorities: [X509Certificate]

    /// PBE iterations and MAC iterations, as `openssl pkcs12 -export -iter 2048` (OpenSSL's default).
    public static let iterations: Int32 = 2048

    public init(identity: CertificateWithKey, authorities: [X509Certificate] = []) {
        self.identity = identity
        self.authorities = authorities
    }

    /// The archive as DER. Certificates and key are encrypted with `pbeWithSHA1And3-KeyTripleDES-CBC`
    /// and the whole is protected by an HMAC-SHA-1 MAC (`-certpbe PBE-SHA1-3DES -keypbe
    /// PBE-SHA1-3DES -macalg sha1`), not OpenSSL 3's AES-256/PBKDF2 default, which macOS Keychain
    /// and older tools do not read. `friendlyName` labels the certificate and key (Keychain shows it).
    public func der(password: String, friendlyName: String?) throws -> [UInt8] {
        guard let stack = pushlab_sk_X509_new_null() else { throw OpenSSLError("sk_X509_new_null") }
        defer { pushlab_sk_X509_pop_free(stack) }
        for authority in authorities {
            guard X509_up_ref(authority.pointer) == 1 else { throw OpenSSLError("X509_up_ref") }
            guard pushlab_sk_X509_push(stack, authority.pointer) > 0 else {
                X509_free(authority.pointer)
                throw OpenSSLError("adding a CA certificate to a PKCS#12 file")
            }
        }
        let tripleDES = NID_pbe_WithSHA1And3_Key_TripleDES_CBC
        // mac_iter -1: no MAC yet; it is set below with SHA-1 named, not left to a default.
        guard let archive = PKCS12_create(
            password, friendlyName, identity.key.pointer, identity.certificate.pointer, stack,
            tripleDES, tripleDES, Self.iterations, -1, 0
        ) else { throw OpenSSLError("making a PKCS#12 file") }
        defer { PKCS12_free(archive) }
        guard PKCS12_set_mac(archive, password, -1, nil, 0, Self.iterations, EVP_sha1()) == 1 else {
            throw OpenSSLError("adding the PKCS#12 MAC")
        }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_PKCS12(archive, &output)
        guard length > 0, let output else { throw OpenSSLError("encoding a PKCS#12 file") }
        defer { pushlab_OPENSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// Opens a DER `.p12` with `password`; it must hold a certificate with its private key.
    public init(der: [UInt8], password: String) throws(PKCS12ReadError) {
        defer { OpenSSLError.drainErrorQueue() }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let archive = parsed else { throw PKCS12ReadError(.notPKCS12, "it is not a PKCS#12 file (DER)") }
        defer { PKCS12_free(archive) }
        // An empty password may have been written as no password at all; PKCS12_parse tries both.
        if PKCS12_mac_present(archive) == 1, PKCS12_verify_mac(archive, password, -1) != 1,
           !(password.isEmpty && PKCS12_verify_mac(archive, nil, 0) == 1) {
            throw PKCS12ReadError(.wrongPassword, password.isEmpty ? "it needs a password" : "the password is wrong (its MAC does not verify)")
        }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var stack: OpaquePointer?
        guard PKCS12_parse(archive, password, &key, &certificate, &stack) == 1 else {
            throw PKCS12ReadError(.unreadable, OpenSSLError("reading the PKCS#12 contents").description)
        }
        // Each taken into a wrapper at once, so every path below frees it.
        let ownedKey = key.map(PrivateKey.init(taking:))
        let ownedCertificate = certificate.map(X509Certificate.init(taking:))
        var authorities: [X509Certificate] = []
        if let stack {
            defer { pushlab_sk_X509_pop_free(stack) }
            for index in 0..<pushlab_sk_X509_num(stack) {
                guard let authority = pushlab_sk_X509_value(stack, index), X509_up_ref(authority) == 1 else { continue }
                authorities.append(X509Certificate(taking: authority))
            }
        }
        guard let ownedKey, let ownedCertificate else {
            throw PKCS12ReadError(.unreadable, "it holds no certificate with its private key")
        }
        guard let identity = try? CertificateWithKey(certificate: ownedCertificate, key: ownedKey) else {
            throw PKCS12ReadError(.unreadable, "its private key is not its certificate's")
        }
        self.identity = identity
        self.authorities = authorities
    }

    /// Opens the `.p12` file at `path` with `password`.
    public init(file path: String, password: String) throws(PKCS12ReadError) {
        guard let bytes = Self.contents(of: path) else { throw PKCS12ReadError(.unreadable, "it cannot be read") }
        try self.init(der: bytes, password: password)
    }

    /// Whether the file at `path` is DER (an ASN.1 SEQUENCE with a long-form length, as every
    /// PKCS#12 file starts), rather than PEM text: how a `.p12` is told apart whatever its name.
    public static func isPKCS12(file path: String) -> Bool {
        guard let bio = BIO_new_file(path, "rb") else {
            OpenSSLError.drainErrorQueue()
            return false
        }
        defer { BIO_free(bio) }
        var head = [UInt8](repeating: 0, count: 2)
        return BIO_read(bio, &head, 2) == 2 && head[0] == 0x30 && head[1] >= 0x81 && head[1] <= 0x84
    }

    private static func contents(of path: String) -> [UInt8]? {
        guard let bio = BIO_new_file(path, "rb") else {
            OpenSSLError.drainErrorQueue()
            return nil
        }
        defer { BIO_free(bio) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = BIO_read(bio, &chunk, Int32(chunk.count))
            if read <= 0 { break }
            bytes.append(contentsOf: chunk[0..<Int(read)])
        }
        return bytes
    }
}

/// Why a `.p12` could not be opened.
public struct PKCS12ReadError: Error, CustomStringConvertible, Sendable {
    public enum Reason: Sendable {
        case notPKCS12
        case wrongPassword
        case unreadable
    }

    public let reason: Reason
    public let description: String

    init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}
