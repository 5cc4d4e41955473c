import PushlabCore
import PushlabOpenSSL
import PushlabScenario

/// The key a `POST /v1/send` signs its provider token with: the one the request brings, or one
/// of the scenario's keys with a private half (the one named by `keyId`, else one of the
/// topic's team, else the first), as `pushlab run` signs its `send` steps.
enum SendSigner {
    static func choose(_ body: SendBody, topicBundleID: String?, world: APNsWorld, available: [Scenario.Signer]) throws(ControlError) -> Scenario.Signer {
        if let pem = body.privateKeyPem {
            guard let keyID = body.keyId, let teamID = body.teamId else {
                throw .invalid("privateKeyPem needs keyId and teamId: the provider token names both")
            }
            let key: ES256Key
            do {
                key = try ES256Key(pem: pem)
            } catch {
                throw .invalid("privateKeyPem is not an EC P-256 key: \(error)")
            }
            guard key.hasPrivateKey else { throw .invalid("privateKeyPem holds a public key; signing needs the .p8 private key") }
            return Scenario.Signer(keyID: keyID, teamID: teamID, key: key)
        }
        if let keyID = body.keyId {
            guard let signer = available.first(where: { $0.keyID == keyID }) else {
                throw .notFound("The scenario has no private key for key id \(keyID): give its entry privateKey, or send privateKeyPem with keyId and teamId")
            }
            return signer
        }
        let team = topicBundleID.flatMap { world.app($0)?.teamID }
        guard let signer = available.first(where: { $0.teamID == team }) ?? available.first else {
            throw .conflict("No key to sign a provider token with: the scenario has no key with privateKey (docs/SCENARIOS.md); add one, or send keyId, teamId and privateKeyPem")
        }
        return signer
    }
}
