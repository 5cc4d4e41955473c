import COpenSSL

extension PrivateKey {
    /// A new EC P-256 key: the test CA's and the server's, as `certs/generate.sh` makes them.
    public static func generateP256() throws -> PrivateKey {
        guard let key = pushlab_generate_p256_key() else { throw OpenSSLError("generating an EC P-256 key") }
        return PrivateKey(taking: key)
    }

    /// A new RSA key with exponent 65537: APNs client certificates are RSA 2048, like Apple's.
    public static func generateRSA(bits: Int = 2048) throws -> PrivateKey {
        guard bits >= 2048, let key = pushlab_generate_rsa_key(UInt32(clamping: bits)) else {
            throw OpenSSLError("generating an RSA \(bits) key")
        }
        return PrivateKey(taking: key)
    }
}
