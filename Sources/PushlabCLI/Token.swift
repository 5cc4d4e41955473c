import ArgumentParser
import Foundation
import PushlabCore
import PushlabOpenSSL

struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mint an APNs provider token (ES256 JWT) from a .p8 key.",
        discussion: """
        Prints the token, ready for `authorization: bearer <token>`. Works for Apple's real keys too.

        Examples:
          pushlab token --key certs/AuthKey_PUSHLAB001.p8 --key-id PUSHLAB001 --team-id TEAMPUSHLB
          curl … -H "authorization: bearer $(pushlab token --key … --key-id … --team-id …)"
          pushlab token --key my.p8 --key-id ABC123DEFG --team-id DEF123GHIJ --issued-at 1767225600 --der
        """
    )

    @Option(help: "The .p8 signing key (PKCS#8 EC P-256 PEM).")
    var key: String

    @Option(help: "The key id (kid), 10 characters from Apple's developer account.")
    var keyId: String

    @Option(help: "The team id (iss).")
    var teamId: String

    @Option(help: "Seconds since 1970 for iat (default: now).")
    var issuedAt: Int64?

    @Flag(help: "Sign with a DER signature, as `openssl dgst -sign` does, instead of JOSE's raw R‖S.")
    var der = false

    func run() throws {
        let pem: String
        do {
            pem = try String(contentsOfFile: key, encoding: .utf8)
        } catch {
            throw ValidationError("Cannot read key \(key): \(error.localizedDescription)")
        }
        let signingKey: ES256Key
        do {
            signingKey = try ES256Key(pem: pem)
        } catch {
            throw ValidationError("\(key) is not an EC P-256 private key: \(error)")
        }
        guard signingKey.hasPrivateKey else { throw ValidationError("\(key) holds a public key; minting needs the .p8 private key") }
        let input = ProviderToken.signingInput(
            keyID: keyId, teamID: teamId, issuedAt: issuedAt ?? Int64(Date().timeIntervalSince1970)
        )
        let signature = try signingKey.sign(Array(input.utf8), raw: !der)
        print(ProviderToken.assemble(signingInput: input, signature: signature))
    }
}
