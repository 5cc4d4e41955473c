import COpenSSL

/// An owned P-256 key (`EVP_PKEY`) for ES256 provider tokens: verifies with the public half,
/// signs with the private half when it has one.
public final class ES256Key: @unchecked Sendable {
    // Never mutated after init; EVP_PKEY is safe to use for verification from several threads.
    private let pointer: OpaquePointer
    public let hasPrivateKey: Bool

    /// Reads a PEM public key (`BEGIN PUBLIC KEY`) or a PKCS#8 / SEC1 private key (a `.p8` file).
    public init(pem: String) throws {
        // No passphrase callback would make OpenSSL prompt on the terminal for an encrypted key
        // (a server starting with such a scenario would hang); this one makes it an error.
        func read(_ reader: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
            try? PEMInput.read(pem, what: "reading a PEM key", reader)
        }
        if pem.contains("PRIVATE KEY"), let key = read({ PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }) {
            pointer = key
            hasPrivateKey = true
        } else if let key = read({ PEM_read_bio_PUBKEY($0, nil, nil, nil) }) {
            pointer = key
            hasPrivateKey = false
        } else {
            throw OpenSSLError("reading an EC P-256 key from PEM")
        }
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC, EVP_PKEY_get_bits(pointer) == 256 else {
            EVP_PKEY_free(pointer)
            OpenSSLError.drainErrorQueue()
            throw OpenSSLError("ES256 needs an EC P-256 key; this PEM holds another kind of key")
        }
    }

    /// A new random P-256 key pair (tests, `pushlab certs`).
    public init() throws {
        guard let key = pushlab_generate_p256_key() else { throw OpenSSLError("generating a P-256 key") }
        pointer = key
        hasPrivateKey = true
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Verifies an ES256 signature over `message`. JOSE's raw `R‖S` (64 bytes: PyJWT, golang-jwt,
    /// CryptoKit) and ASN.1 DER (Java, `openssl dgst -sign`) are both accepted, as Apple does.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        defer { OpenSSLError.drainErrorQueue() }
        if signature.count == 64, let der = Self.derSignature(fromRaw: signature), verify(der: der, message: message) {
            return true
        }
        return verify(der: signature, message: message)
    }

    /// Signs `message`; returns the signature as raw `R‖S` (JOSE) or DER.
    public func sign(_ message: [UInt8], raw: Bool = true) throws -> [UInt8] {
        guard hasPrivateKey else { throw OpenSSLError("signing needs a private key") }
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { throw OpenSSLError("EVP_DigestSignInit") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw OpenSSLError("EVP_DigestSign") }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { throw OpenSSLError("EVP_DigestSign") }
        der = Array(der.prefix(length))
        return raw ? try Self.rawSignature(fromDER: der) : der
    }

    private func verify(der: [UInt8], message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }

    static func derSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s else { BN_free(r); BN_free(s); return nil }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else { BN_free(r); BN_free(s); return nil }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &output)
        guard length > 0, let output else { return nil }
        defer { pushlab_OPENSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    static func rawSignature(fromDER der: [UInt8]) throws -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw OpenSSLError("parsing a DER ECDSA signature") }
        defer { ECDSA_SIG_free(parsed) }
        var raw = [UInt8](repeating: 0, count: 64)
        guard let r = ECDSA_SIG_get0_r(parsed), let s = ECDSA_SIG_get0_s(parsed),
              BN_bn2binpad(r, &raw, 32) == 32,
              raw.withUnsafeMutableBufferPointer({ BN_bn2binpad(s, $0.baseAddress! + 32, 32) }) == 32 else {
            throw OpenSSLError("converting a DER signature to R‖S")
        }
        return raw
    }
}
