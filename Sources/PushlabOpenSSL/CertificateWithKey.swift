/// A certificate and its private key, as a pair of files (`client.pem` + `client-key.pem`) holds
/// them: what a CA signs with, and what `CertificateBuilder` hands back for a leaf.
public struct CertificateWithKey: Sendable {
    public let certificate: X509Certificate
    public let key: PrivateKey

    /// Pairs them; throws when the key is not the certificate's.
    public init(certificate: X509Certificate, key: PrivateKey) throws {
        guard key.matches(certificate) else {
            throw OpenSSLError("pairing a certificate with a private key that is not its own")
        }
        self.certificate = certificate
        self.key = key
    }
}
