import PushlabOpenSSL

/// Fired inbound by `TLSHandler` once the handshake is done: what was negotiated, and the
/// client certificate (verified or not) for certificate-based provider auth.
public struct TLSHandshakeCompleted: Sendable {
    public var alpn: String?
    public var serverName: String?
    public var tlsVersion: String
    public var peerCertificate: X509Certificate?
    public var peerVerification: CertificateVerification
}
