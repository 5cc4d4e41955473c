/// `client.p12`: `client.pem`, its key and `ca.pem` in one PKCS#12 file, what PushMeBaby- and
/// Knuff-style senders and Keychain Access import. 3DES and a SHA-1 MAC (see `PKCS12Archive.der`).
extension CertificateSet {
    public static let clientPKCS12File = "client.p12"
    public static let defaultPKCS12Password = "pushlab"

    /// The friendly name Keychain shows: the binary file's "for testing only" mark.
    public var pkcs12FriendlyName: String { "Pushlab TEST APNs client \(identity.bundleID) - for testing only" }

    public func clientPKCS12File(_ client: CertificateWithKey, authority: X509Certificate, password: String) throws -> File {
        let der = try PKCS12Archive(identity: client, authorities: [authority]).der(password: password, friendlyName: pkcs12FriendlyName)
        return File(name: Self.clientPKCS12File, bytes: der, isPrivate: true,
                    description: "PKCS#12 of client.pem + client-key.pem + ca.pem, password \(password)")
    }

    /// Whether an existing `client.p12` can stay: it opens with `password` and holds `client`'s
    /// certificate and `authority`.
    public static func pkcs12(_ bytes: [UInt8], holds client: X509Certificate, authority: X509Certificate, password: String) -> Bool {
        guard let archive = try? PKCS12Archive(der: bytes, password: password) else { return false }
        return archive.identity.certificate.derBytes == client.derBytes
            && archive.authorities.map(\.derBytes) == [authority.derBytes]
    }
}
