import PushlabOpenSSL

/// Fired inbound by `TLSHandler` when the handshake fails, just before it closes the connection
/// (and the error a client's connect fails with): OpenSSL's reason and, for a client, what it
/// made of the server's certificate, so the message can say what to change.
public struct TLSHandshakeFailed: Error, Sendable, CustomStringConvertible {
    /// OpenSSL's error queue as text.
    public var error: String
    /// The check of the peer's certificate chain; trusted when the failure was something else.
    public var peerVerification: CertificateVerification
    /// The server certificate that check refused, when one was refused.
    public var rejectedPeerCertificate: X509Certificate?

    public var description: String { "TLS handshake failed: \(error)" }
}
