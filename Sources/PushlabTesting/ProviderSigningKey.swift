import Foundation
import PushlabCore
import PushlabOpenSSL
import PushlabScenario  // ES256Key as the core's SignatureVerifier

/// A provider-token signing key as Apple's developer account hands it out (a `.p8` file, its key
/// id and team id), registered with the test server so a client authenticates at once.
public struct ProviderSigningKey: Sendable {
    public let keyID: String
    public let teamID: String
    /// The `.p8` file (PKCS#8 EC P-256 PEM), for clients that read the key from disk.
    public let privateKeyFile: URL
    /// The `.p8` file's text, for clients that take the key as a string (APNSwift's `privateKey`).
    public let privateKeyPEM: String
    /// The public half, which is all APNs knows of a key.
    public let publicKeyFile: URL
    private let signer: ES256Key
    private let verifier: ES256Key

    public init(keyID: String, teamID: String, privateKeyFile: URL, publicKeyFile: URL) throws(PushlabTestingError) {
        self.keyID = keyID
        self.teamID = teamID
        self.privateKeyFile = privateKeyFile
        self.publicKeyFile = publicKeyFile
        privateKeyPEM = try Self.read(privateKeyFile, what: "signing key")
        let publicKeyPEM = try Self.read(publicKeyFile, what: "public key")
        do {
            signer = try ES256Key(pem: privateKeyPEM)
            verifier = try ES256Key(pem: publicKeyPEM)
        } catch {
            throw PushlabTestingError("\(privateKeyFile.path) and \(publicKeyFile.path) must hold an EC P-256 key pair: \(error)")
        }
        guard signer.hasPrivateKey else {
            throw PushlabTestingError("\(privateKeyFile.path) holds a public key; minting provider tokens needs the .p8 private key")
        }
    }

    /// The repository's sample key: key id `PUSHLAB001`, team id `TEAMPUSHLB`. For testing only.
    public static func bundled() throws(PushlabTestingError) -> ProviderSigningKey {
        try ProviderSigningKey(
            keyID: "PUSHLAB001", teamID: "TEAMPUSHLB",
            privateKeyFile: BundledFile.url("AuthKey_PUSHLAB001.p8"),
            publicKeyFile: BundledFile.url("AuthKey_PUSHLAB001.pub.pem")
        )
    }

    /// A provider token (ES256 JWT) for `authorization: bearer`, issued at `issuedAt` (epoch
    /// milliseconds, as Pushlab's clock reads; the token carries whole seconds). APNs judges its
    /// age by its own clock, so a test on a manual clock mints it at that clock's time.
    public func providerToken(issuedAt: EpochMilliseconds) throws(PushlabTestingError) -> String {
        let input = ProviderToken.signingInput(keyID: keyID, teamID: teamID, issuedAt: issuedAt / 1000)
        do {
            return ProviderToken.assemble(signingInput: input, signature: try signer.sign(Array(input.utf8)))
        } catch {
            throw PushlabTestingError("Signing a provider token with key \(keyID) failed: \(error)")
        }
    }

    /// The key as the APNs world registers it: team-wide, in both environments.
    var registration: SigningKey {
        SigningKey(keyID: keyID, teamID: teamID, verifier: verifier)
    }

    private static func read(_ file: URL, what: String) throws(PushlabTestingError) -> String {
        do {
            return try String(contentsOf: file, encoding: .utf8)
        } catch {
            throw PushlabTestingError("Cannot read the \(what) \(file.path): \(error.localizedDescription)")
        }
    }
}
