import COpenSSL

/// An owned private key (`EVP_PKEY`) of any kind OpenSSL reads: what `pushlab certs` signs and
/// issues certificates with. (`ES256Key` is the narrower P-256 key of provider tokens.)
public final class PrivateKey: @unchecked Sendable {
    // Never mutated after init; an EVP_PKEY is safe to sign with from several threads.
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Reads the first private key of a PEM file or string (PKCS#8, SEC1 or PKCS#1, unencrypted;
    /// text before `-----BEGIN`, like the "for testing only" comment lines, is skipped).
    public convenience init(pem: String) throws {
        // A callback that gives no passphrase: with none, OpenSSL would prompt on the terminal
        // for an encrypted key; this way an encrypted key is an error.
        self.init(taking: try PEMInput.read(pem, what: "reading a PEM private key") { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) })
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`), as `openssl genpkey` writes it.
    public func pem() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else {
            throw OpenSSLError("writing a private key as PEM")
        }
        return MemoryBIO.drain(bio)
    }

    /// The public half as PEM (`BEGIN PUBLIC KEY`), as `openssl pkey -pubout` writes it.
    public func publicKeyPEM() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PUBKEY(bio, pointer) == 1 else { throw OpenSSLError("writing a public key as PEM") }
        return MemoryBIO.drain(bio)
    }

    /// "EC P-256", "RSA 2048", ...: for messages.
    public var summary: String {
        let bits = EVP_PKEY_get_bits(pointer)
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_EC: return bits == 256 ? "EC P-256" : "EC \(bits)"
        case EVP_PKEY_RSA: return "RSA \(bits)"
        default: return "\(String(cString: OBJ_nid2sn(EVP_PKEY_get_base_id(pointer)))) \(bits)"
        }
    }

    /// Whether `certificate` holds this key's public half.
    public func matches(_ certificate: X509Certificate) -> Bool {
        defer { OpenSSLError.drainErrorQueue() }  // a mismatch leaves an error on the queue
        return X509_check_private_key(certificate.pointer, pointer) == 1
    }
}
