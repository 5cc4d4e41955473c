import PushlabCore
import PushlabOpenSSL
import PushlabScenario
import Synchronization

/// A signature verifier that counts its calls, to prove verification is cached.
final class CountingVerifier: SignatureVerifier {
    let key: ES256Key
    private let calls = Atomic<Int>(0)
    init(_ key: ES256Key) { self.key = key }
    var count: Int { calls.load(ordering: .relaxed) }
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        calls.add(1, ordering: .relaxed)
        return key.isValidSignature(signature, for: message)
    }
}

/// Keys, apps and tokens covering every rule: two teams, team-scoped and topic-specific keys,
/// keys per environment, and device tokens in every state.
struct TestWorld {
    static let team = "TEAM000001"
    static let otherTeam = "TEAM000002"
    static let app = "com.example.app"
    static let sibling = "com.example.other"
    static let rivalApp = "com.rival.app"
    static let goneSince: EpochMilliseconds = 1_700_000_000_123

    static let devToken = String(repeating: "a1", count: 32)
    static let prodToken = String(repeating: "b2", count: 32)
    static let voipToken = String(repeating: "c3", count: 32)
    static let unregisteredToken = String(repeating: "d4", count: 32)
    static let expiredToken = String(repeating: "e5", count: 32)
    static let siblingToken = String(repeating: "f6", count: 32)
    static let longToken = String(repeating: "07", count: 50)  // 100 hex digits: Apple's tokens vary in length

    /// keyID → private key, for minting tokens.
    let signers: [String: ES256Key]
    let verifiers: [String: CountingVerifier]
    let world: APNsWorld

    init() throws {
        let specs: [(String, String, SigningKey.Scope, Set<APNsEnvironment>, String?)] = [
            ("TEAMKEY001", Self.team, .team, [.development, .production], nil),
            ("TEAMKEY002", Self.team, .team, [.development, .production], nil),
            ("DEVKEY0001", Self.team, .team, [.development], nil),
            ("PRODKEY001", Self.team, .team, [.production], nil),
            ("TOPICKEY01", Self.team, .topics([Self.app]), [.development, .production], "TOPICKEY02"),
            ("TOPICKEY02", Self.team, .topics([Self.sibling]), [.development, .production], "TOPICKEY01"),
            ("TOPICKEY03", Self.team, .topics([Self.app]), [.development, .production], nil),
            ("OTHERKEY01", Self.otherTeam, .team, [.development, .production], nil),
            ("REVOKEDKEY", Self.team, .team, [.development, .production], nil),
        ]
        var signers: [String: ES256Key] = [:]
        var verifiers: [String: CountingVerifier] = [:]
        var keys: [SigningKey] = []
        for (keyID, team, scope, environments, related) in specs {
            let key = try ES256Key()
            signers[keyID] = key
            verifiers[keyID] = CountingVerifier(key)
            keys.append(SigningKey(
                keyID: keyID, teamID: team, scope: scope, environments: environments, relatedKeyID: related,
                isRevoked: keyID == "REVOKEDKEY", verifier: verifiers[keyID]!
            ))
        }
        self.signers = signers
        self.verifiers = verifiers
        world = APNsWorld(
            keys: keys,
            apps: [
                AppRecord(bundleID: Self.app, teamID: Self.team),
                AppRecord(bundleID: Self.sibling, teamID: Self.team),
                AppRecord(bundleID: Self.rivalApp, teamID: Self.otherTeam),
            ],
            tokens: [
                DeviceTokenRecord(token: Self.devToken, bundleID: Self.app, environment: .development),
                DeviceTokenRecord(token: Self.prodToken, bundleID: Self.app, environment: .production),
                DeviceTokenRecord(token: Self.voipToken, bundleID: Self.app, environment: .development, kind: .voip),
                DeviceTokenRecord(token: Self.unregisteredToken, bundleID: Self.app, environment: .development, state: .unregistered(since: Self.goneSince)),
                DeviceTokenRecord(token: Self.expiredToken, bundleID: Self.app, environment: .development, state: .expired(since: Self.goneSince)),
                DeviceTokenRecord(token: Self.siblingToken, bundleID: Self.sibling, environment: .development),
                DeviceTokenRecord(token: Self.longToken, bundleID: Self.app, environment: .development),
            ]
        )
    }

    /// A provider token signed by `keyID`; `raw` picks JOSE R‖S, otherwise DER.
    func token(keyID: String = "TEAMKEY001", teamID: String? = nil, issuedAt: Int64, raw: Bool = true) throws -> String {
        let input = ProviderToken.signingInput(keyID: keyID, teamID: teamID ?? (keyID == "OTHERKEY01" ? Self.otherTeam : Self.team), issuedAt: issuedAt)
        let signature = try signers[keyID]!.sign(Array(input.utf8), raw: raw)
        return ProviderToken.assemble(signingInput: input, signature: signature)
    }
}
