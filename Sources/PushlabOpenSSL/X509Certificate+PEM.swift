import COpenSSL

extension X509Certificate {
    /// The certificate as PEM (`BEGIN CERTIFICATE`), as `openssl x509` prints it.
    public func pem() throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, pointer) == 1 else { throw OpenSSLError("writing a certificate as PEM") }
        return MemoryBIO.drain(bio)
    }
}
