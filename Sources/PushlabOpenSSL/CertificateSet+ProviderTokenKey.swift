/// The provider-token (JWT, ES256) signing key made beside the certificates, like the
/// `AuthKey_<key id>.p8` Apple lets you download; its public half, which the mock verifies tokens
/// with; and `sample-key.json`, which names the ids. Written without comment lines: swift-crypto's
/// `pemRepresentation:` readers refuse anything before `-----BEGIN` (certs/README.md).
extension CertificateSet {
    public static let sampleKeyFile = "sample-key.json"
    public static let defaultKeyID = "PUSHLAB001"

    public static func tokenKeyFile(keyID: String) -> String { "AuthKey_\(keyID).p8" }
    public static func tokenPublicKeyFile(keyID: String) -> String { "AuthKey_\(keyID).pub.pem" }

    /// Why `keyID` cannot be a key id, nil when it can: 1 to 32 letters and digits (it names a file).
    public static func problem(withKeyID keyID: String) -> String? {
        let letterOrDigit = { (c: Unicode.Scalar) in c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c)) }
        guard (1...32).contains(keyID.utf8.count), keyID.unicodeScalars.allSatisfy(letterOrDigit) else {
            return "bad key id '\(keyID)': use 1 to 32 letters and digits (Apple's are 10, e.g. ABC123DEFG)"
        }
        return nil
    }

    /// The key an existing `.p8` holds, or why it cannot stay: it must be an unencrypted EC P-256
    /// PKCS#8 key with nothing before `-----BEGIN PRIVATE KEY-----`.
    public static func tokenKey(from text: String) -> Result<PrivateKey, TokenKeyProblem> {
        guard text.hasPrefix("-----BEGIN PRIVATE KEY-----") else {
            return .failure(TokenKeyProblem(description: "it does not start with -----BEGIN PRIVATE KEY----- (PKCS#8, no comment lines)"))
        }
        guard let key = try? PrivateKey(pem: text), key.summary == "EC P-256" else {
            return .failure(TokenKeyProblem(description: "it holds no unencrypted EC P-256 private key"))
        }
        return .success(key)
    }

    public struct TokenKeyProblem: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// `AuthKey_<key id>.p8` (mode 0600) and `AuthKey_<key id>.pub.pem`.
    public func tokenKeyFiles(_ key: PrivateKey, keyID: String) throws -> (privateKey: File, publicKey: File) {
        (
            File(name: Self.tokenKeyFile(keyID: keyID), contents: try key.pem(), isPrivate: true,
                 description: "provider-token signing key (ES256, EC P-256, PKCS#8), key id \(keyID)"),
            File(name: Self.tokenPublicKeyFile(keyID: keyID), contents: try key.publicKeyPEM(), isPrivate: false,
                 description: "public key of \(Self.tokenKeyFile(keyID: keyID))")
        )
    }

    /// The ids a sender signs tokens with, and the key files, relative to the folder.
    public func sampleKeyFile(keyID: String) -> File {
        // Key id, team id and bundle id are letters, digits, '.' and '-': nothing to escape.
        let json = "{\"keyId\":\"\(keyID)\",\"teamId\":\"\(identity.teamID)\",\"bundleId\":\"\(identity.bundleID)\","
            + "\"privateKey\":\"\(Self.tokenKeyFile(keyID: keyID))\",\"publicKey\":\"\(Self.tokenPublicKeyFile(keyID: keyID))\","
            + "\"_comment\":\"Pushlab TEST key - for testing only, never use it outside tests\"}\n"
        return File(name: Self.sampleKeyFile, contents: json, isPrivate: false,
                     description: "key id \(keyID), team id \(identity.teamID), bundle id \(identity.bundleID) and the key files")
    }
}
