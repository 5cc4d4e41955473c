import PushlabTransport

extension APNsClientError {
    /// A failed TLS handshake in words that say what to change: mostly the server's certificate,
    /// checked against the CA file the client was given, or against the name it connected by.
    static func handshakeFailed(_ failure: TLSHandshakeFailed, _ configuration: APNsClient.Configuration) -> APNsClientError {
        let verification = failure.peerVerification
        guard !verification.isTrusted else { return APNsClientError(failure.description) }
        let certificate = failure.rejectedPeerCertificate.map { " (subject \($0.subject), issued by \($0.issuer))" } ?? ""
        let trustedBy = configuration.trustedCertificatesFile.map { "the CA file \($0)" } ?? "the system's trusted CAs"
        let problem: String
        let fix: String
        if verification.isNameMismatch {
            let name = configuration.serverName ?? configuration.host
            problem = "the server's certificate\(certificate) is not valid for \(name), the name connected to"
            fix = "Connect by a name the certificate carries, or give the server a certificate for \(name) "
                + "(pushlab certs makes one for localhost, 127.0.0.1, ::1 and Apple's host names)."
        } else if verification.isExpired || verification.isNotYetValid {
            problem = "the server's certificate\(certificate) is outside its validity dates"
            fix = "Give the server a current certificate (pushlab certs makes one), or check this machine's clock."
        } else {
            problem = "the server's certificate\(certificate) is not trusted by \(trustedBy)"
            fix = "Trust the CA that signed the server's certificate instead (for a Pushlab server with its own certificates: certs/ca.pem)."
        }
        return APNsClientError("TLS handshake failed: \(problem); OpenSSL says: \(verification). \(fix)")
    }
}
