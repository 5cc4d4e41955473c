import PushlabCore
import Testing

@Suite("Provider tokens (reference section 4)")
struct ProviderTokenTests {
    private let now = Harness.start / 1000

    @Test(arguments: [true, false])
    func rawAndDERSignaturesAreBothAccepted(raw: Bool) throws {
        let harness = try Harness()
        harness.providerToken = try harness.world.token(issuedAt: now, raw: raw)
        #expect(harness.reason(harness.send()) == nil)
    }

    @Test func iatAsANumericStringAndPrettyPrintedClaimsAreAccepted() throws {
        let harness = try Harness()
        // What APNSwift sends: pretty-printed JSON, "iat" as a string, "kid" repeated in the claims.
        let header = Base64URLForTests.encode(#"{"alg":"ES256","kid":"TEAMKEY001","typ":"JWT"}"#)
        let claims = Base64URLForTests.encode("{\n  \"iss\" : \"TEAM000001\",\n  \"iat\" : \"\(now)\",\n  \"kid\" : \"TEAMKEY001\"\n}")
        let signature = try harness.world.signers["TEAMKEY001"]!.sign(Array("\(header).\(claims)".utf8))
        harness.providerToken = ProviderToken.assemble(signingInput: "\(header).\(claims)", signature: signature)
        #expect(harness.reason(harness.send()) == nil)
    }

    @Test func parsingIsLenientWhereApplesSampleIs() throws {
        let noAlg = Base64URLForTests.encode(#"{"kid":"K"}"#) + "." + Base64URLForTests.encode(#"{"iss":"T","iat":"1459143580650"}"#) + ".AAAA"
        let parsed = try ProviderToken.parse(noAlg[...])
        #expect(parsed.keyID == "K" && parsed.teamID == "T")
        #expect(parsed.issuedAt == 1_459_143_580, "milliseconds are read as such")
        let hs256 = Base64URLForTests.encode(#"{"alg":"HS256","kid":"K"}"#) + "." + Base64URLForTests.encode(#"{"iss":"T","iat":1}"#) + ".AAAA"
        #expect(throws: ProviderToken.ParseError.self) { try ProviderToken.parse(hs256[...]) }
    }

    /// A token with this header and these claims (JSON text), signed by TEAMKEY001.
    private func custom(header: String, claims: String, in world: TestWorld, padded: Bool = false) throws -> String {
        let pad = { (text: String) in padded ? text + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4) : text }
        let input = pad(Base64URLForTests.encode(header)) + "." + pad(Base64URLForTests.encode(claims))
        return ProviderToken.assemble(signingInput: input, signature: try world.signers["TEAMKEY001"]!.sign(Array(input.utf8)))
    }

    @Test(arguments: ["\(Harness.start / 1000).123456", "\"\(Harness.start / 1000).123456\""])
    func fractionalIatIsReadAsSeconds(iat: String) throws {
        // PyAPNs2 (`apns2`, `apns2-up`) sends `"iat": time.time()`; RFC 7519 allows non-integer NumericDates.
        let harness = try Harness()
        harness.providerToken = try custom(header: #"{"alg":"ES256","kid":"TEAMKEY001"}"#, claims: #"{"iss":"TEAM000001","iat":\#(iat)}"#, in: harness.world)
        let parsed = try ProviderToken.parse(harness.providerToken[...])
        #expect(parsed.issuedAtMilliseconds == Harness.start / 1000 * 1000 + 123)
        #expect(parsed.issuedAt == Harness.start / 1000)
        #expect(harness.reason(harness.send()) == nil)
        harness.clock.set(Harness.start / 1000 * 1000 + 123 + 3_600_000)
        #expect(harness.reason(harness.send()) == nil, "exactly one hour after the fractional iat")
        harness.clock.advance(milliseconds: 1)
        #expect(harness.reason(harness.send()) == .expiredProviderToken, "the fraction counts")
    }

    @Test func anotherFractionalIatIsANewToken() throws {
        let harness = try Harness()
        let second = Harness.start / 1000
        harness.providerToken = try custom(header: #"{"alg":"ES256","kid":"TEAMKEY001"}"#, claims: #"{"iss":"TEAM000001","iat":\#(second).25}"#, in: harness.world)
        #expect(harness.reason(harness.send()) == nil)
        harness.providerToken = try custom(header: #"{"alg":"ES256","kid":"TEAMKEY001"}"#, claims: #"{"iss":"TEAM000001","iat":\#(second).75}"#, in: harness.world)
        #expect(harness.reason(harness.send()) == .tooManyProviderTokenUpdates, "same second, another token string")
    }

    @Test func headerAndClaimShapesClientsSendAreAccepted() throws {
        let iat = Harness.start / 1000
        let shapes: [(why: String, header: String, claims: String, padded: Bool)] = [
            ("typ JWT (pushy, APNSwift)", #"{"alg":"ES256","typ":"JWT","kid":"TEAMKEY001"}"#, #"{"iss":"TEAM000001","iat":\#(iat)}"#, false),
            ("keys in another order", #"{"kid":"TEAMKEY001","alg":"ES256"}"#, #"{"iat":\#(iat),"iss":"TEAM000001"}"#, false),
            ("exp and jti claims", #"{"alg":"ES256","kid":"TEAMKEY001"}"#, #"{"iss":"TEAM000001","iat":\#(iat),"exp":\#(iat - 10),"jti":"x"}"#, false),
            ("whitespace in the JSON", "{ \"alg\" : \"ES256\" ,\n\t\"kid\" : \"TEAMKEY001\" }", "{\n  \"iss\": \"TEAM000001\",\n  \"iat\": \(iat)\n}", false),
            ("base64url padding", #"{"alg":"ES256","kid":"TEAMKEY001"}"#, #"{"iss":"TEAM000001","iat":\#(iat)}"#, true),
            ("iat written with a decimal point", #"{"alg":"ES256","kid":"TEAMKEY001"}"#, #"{"iss":"TEAM000001","iat":\#(Double(iat))}"#, false),
        ]
        for shape in shapes {
            let harness = try Harness()
            harness.providerToken = try custom(header: shape.header, claims: shape.claims, in: harness.world, padded: shape.padded)
            #expect(harness.reason(harness.send()) == nil, "\(shape.why)")
        }
    }

    @Test func keyIDAndTeamIDAreCaseSensitive() throws {
        let iat = Harness.start / 1000
        for (header, claims) in [(#"{"alg":"ES256","kid":"teamkey001"}"#, #"{"iss":"TEAM000001","iat":\#(iat)}"#),
                                 (#"{"alg":"ES256","kid":"TEAMKEY001"}"#, #"{"iss":"team000001","iat":\#(iat)}"#),
                                 (#"{"alg":"ES256","KID":"TEAMKEY001"}"#, #"{"iss":"TEAM000001","iat":\#(iat)}"#)] {
            let harness = try Harness()
            harness.providerToken = try custom(header: header, claims: claims, in: harness.world)
            #expect(harness.reason(harness.send()) == .invalidProviderToken, "\(header) \(claims)")
        }
    }

    @Test(arguments: ["\"1e9\"", "\"nan\"", "true", "null", "\" 1712345678\""])
    func iatThatIsNoNumberIsInvalid(iat: String) throws {
        let harness = try Harness()
        harness.providerToken = try custom(header: #"{"alg":"ES256","kid":"TEAMKEY001"}"#, claims: #"{"iss":"TEAM000001","iat":\#(iat)}"#, in: harness.world)
        #expect(harness.reason(harness.send()) == .invalidProviderToken)
    }

    @Test func missingProviderToken() throws {
        let harness = try Harness()
        #expect(harness.reason(harness.send(omitAuthorization: true)) == .missingProviderToken)
        #expect(harness.reason(harness.send(authorization: harness.providerToken)) == .missingProviderToken, "no bearer prefix")
        #expect(harness.reason(harness.send(authorization: "bearer ")) == .missingProviderToken)
        #expect(harness.reason(harness.send(authorization: "basic abc")) == .missingProviderToken)
        #expect(harness.reason(harness.send(authorization: "Bearer  \(harness.providerToken) ")) == nil, "case and spaces are forgiven")
        #expect(harness.reason(harness.send(authorization: "bearer\t\(harness.providerToken)\t")) == nil, "tabs are HTTP whitespace too")
    }

    @Test func invalidProviderToken() throws {
        let harness = try Harness()
        let world = harness.world
        let bad: [(String, String)] = [
            ("malformed", "bearer not.a.jwt"),
            ("two parts", "bearer abc.def"),
            ("unknown kid", "bearer " + (try signed(ProviderToken.signingInput(keyID: "NOSUCHKEY1", teamID: TestWorld.team, issuedAt: now), by: "TEAMKEY001", in: world))),
            ("iss of another team", "bearer " + (try world.token(keyID: "TEAMKEY001", teamID: TestWorld.otherTeam, issuedAt: now))),
            ("signed by another key", "bearer " + String(try world.token(keyID: "TEAMKEY001", issuedAt: now).split(separator: ".").prefix(2).joined(separator: ".")) + "." + String(try world.token(keyID: "TEAMKEY002", issuedAt: now).split(separator: ".")[2])),
            ("iat over an hour ahead", "bearer " + (try world.token(issuedAt: now + 3601))),
        ]
        for (why, authorization) in bad {
            harness.reconnect()
            #expect(harness.reason(harness.send(authorization: authorization)) == .invalidProviderToken, "\(why)")
        }
    }

    private func signed(_ input: String, by keyID: String, in world: TestWorld) throws -> String {
        ProviderToken.assemble(signingInput: input, signature: try world.signers[keyID]!.sign(Array(input.utf8)))
    }

    @Test func expiryIsExactlyOneHourByTheServersClock() throws {
        let harness = try Harness()
        harness.clock.set(Harness.start + 3_600_000)
        #expect(harness.reason(harness.send()) == nil, "exactly one hour old is still valid")
        harness.clock.advance(milliseconds: 1)
        #expect(harness.reason(harness.send()) == .expiredProviderToken)
        harness.reconnect()
        #expect(harness.reason(harness.send()) == .expiredProviderToken, "a stale token fails on a new connection too")
        harness.providerToken = try harness.world.token(issuedAt: (Harness.start + 3_600_001) / 1000)
        #expect(harness.reason(harness.send()) == nil, "a fresh token works")
    }

    @Test func newTokenWithinTwentyMinutesIsTooManyUpdates() throws {
        let harness = try Harness()
        #expect(harness.reason(harness.send()) == nil)
        harness.clock.advance(seconds: 60)
        let first = harness.providerToken
        harness.providerToken = try harness.world.token(issuedAt: now + 60)
        #expect(harness.reason(harness.send()) == .tooManyProviderTokenUpdates)
        harness.providerToken = first
        #expect(harness.reason(harness.send()) == nil, "the rejected token did not replace the current one")
        harness.clock.set(Harness.start + 20 * 60_000)
        harness.providerToken = try harness.world.token(issuedAt: now + 1200)
        #expect(harness.reason(harness.send()) == nil, "20 minutes after the last change a new token is fine")
        harness.reconnect()
        harness.providerToken = try harness.world.token(issuedAt: now + 1201)
        #expect(harness.reason(harness.send()) == nil, "the rule is per connection")
    }

    @Test func allowanceToleratesSomeUpdates() throws {
        var policy = APNsPolicy()
        policy.providerTokenUpdateAllowance = 2
        let harness = try Harness(policy: policy)
        for offset in 0..<3 {
            harness.providerToken = try harness.world.token(issuedAt: now + Int64(offset))
            #expect(harness.reason(harness.send()) == nil)
        }
        harness.providerToken = try harness.world.token(issuedAt: now + 3)
        #expect(harness.reason(harness.send()) == .tooManyProviderTokenUpdates)
    }

    @Test func oneTeamPerConnection() throws {
        var policy = APNsPolicy()
        policy.providerTokenUpdateWindowSeconds = 0
        let harness = try Harness(policy: policy)
        #expect(harness.reason(harness.send()) == nil)
        harness.providerToken = try harness.world.token(keyID: "OTHERKEY01", issuedAt: now)
        #expect(harness.reason(harness.send(topic: TestWorld.rivalApp)) == .invalidProviderToken)
        harness.reconnect()
        #expect(harness.reason(harness.send(token: String(repeating: "ab", count: 32), topic: TestWorld.rivalApp)) == .badDeviceToken, "alone on its connection the other team authenticates")
    }

    @Test func keysMayOnlyBeMixedWhenRelated() throws {
        var policy = APNsPolicy()
        policy.providerTokenUpdateWindowSeconds = 0
        let cases: [(first: String, second: String, firstTopic: String, secondTopic: String, expected: APNsErrorReason?)] = [
            ("TEAMKEY001", "TEAMKEY002", TestWorld.app, TestWorld.app, nil),
            ("TEAMKEY001", "TOPICKEY01", TestWorld.app, TestWorld.app, .unrelatedKeyIdInToken),
            ("TOPICKEY01", "TEAMKEY001", TestWorld.app, TestWorld.app, .unrelatedKeyIdInToken),
            ("TOPICKEY01", "TOPICKEY02", TestWorld.app, TestWorld.sibling, nil),
            ("TOPICKEY01", "TOPICKEY03", TestWorld.app, TestWorld.app, .unrelatedKeyIdInToken),
        ]
        for test in cases {
            let harness = try Harness(policy: policy)
            harness.providerToken = try harness.world.token(keyID: test.first, issuedAt: now)
            #expect(harness.reason(harness.send(topic: test.firstTopic)) == nil, "\(test.first)")
            harness.providerToken = try harness.world.token(keyID: test.second, issuedAt: now)
            let token = test.secondTopic == TestWorld.sibling ? TestWorld.siblingToken : TestWorld.devToken
            #expect(harness.reason(harness.send(token: token, topic: test.secondTopic)) == test.expected, "\(test.first) then \(test.second)")
        }
    }

    @Test func topicSpecificKeysPushOnlyToTheirTopics() throws {
        let harness = try Harness()
        harness.providerToken = try harness.world.token(keyID: "TOPICKEY01", issuedAt: now)
        #expect(harness.reason(harness.send()) == nil)
        #expect(harness.reason(harness.send(token: TestWorld.siblingToken, topic: TestWorld.sibling)) == .invalidProviderToken)
    }

    @Test func topicOfAnotherTeamIsDisallowed() throws {
        let harness = try Harness()
        #expect(harness.reason(harness.send(topic: TestWorld.rivalApp)) == .topicDisallowed)
        #expect(harness.reason(harness.send(topic: "com.unknown.app")) == .topicDisallowed)
    }

    @Test(arguments: [APNsErrorReason.badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken])
    func keyForTheOtherEnvironment(spelling: APNsErrorReason) throws {
        var policy = APNsPolicy()
        policy.environmentKeyReason = spelling
        let harness = try Harness(policy: policy)
        harness.providerToken = try harness.world.token(keyID: "PRODKEY001", issuedAt: now)
        #expect(harness.reason(harness.send()) == spelling)
        let production = try Harness(policy: policy, environment: .production)
        production.providerToken = try production.world.token(keyID: "DEVKEY0001", issuedAt: now)
        #expect(production.reason(production.send(token: TestWorld.prodToken)) == spelling)
        #expect(spelling.status == 403)
    }

    /// A token that passed is not checked again on its connection, but where its key works still
    /// is, request by request: the `:authority` of each request may name the other environment.
    @Test func aPassedTokenIsStillCheckedForEachRequestsEnvironment() throws {
        let harness = try Harness()
        harness.providerToken = try harness.world.token(keyID: "DEVKEY0001", issuedAt: now)
        #expect(harness.reason(harness.send()) == nil)
        #expect(harness.reason(harness.send(token: TestWorld.prodToken, authority: "api.push.apple.com")) == .badEnvironmentKeyIdInToken)
        #expect(harness.reason(harness.send(authority: "api.sandbox.push.apple.com")) == nil)
        #expect(harness.world.verifiers["DEVKEY0001"]!.count == 1, "verified once, checked three times")
    }

    @Test func revokedKeyIsForbidden() throws {
        let harness = try Harness()
        harness.providerToken = try harness.world.token(keyID: "REVOKEDKEY", issuedAt: now)
        #expect(harness.reason(harness.send()) == .forbidden)
    }

    @Test func aVerifiedTokenIsNotVerifiedAgainOnItsConnection() throws {
        let harness = try Harness()
        for _ in 0..<50 { harness.send() }
        #expect(harness.world.verifiers["TEAMKEY001"]!.count == 1)
        #expect(harness.log.entries(limit: 50).allSatisfy { $0.status == 200 })
    }

    @Test func removingAKeyInvalidatesItsTokensOnLiveConnections() throws {
        let harness = try Harness()
        #expect(harness.reason(harness.send()) == nil)
        harness.world.world.removeKey("TEAMKEY001")
        #expect(harness.reason(harness.send()) == .invalidProviderToken)
        #expect(harness.reason(harness.send()) == .invalidProviderToken, "and on every request after, not only the first")
    }

    @Test func tokenConnectionsAllowOneStreamUntilTheFirstValidToken() throws {
        let harness = try Harness()
        #expect(harness.connection.initialMaxConcurrentStreams == 1)
        #expect(harness.send(omitAuthorization: true).actions.isEmpty, "still 1")
        #expect(harness.send().actions == [.setMaxConcurrentStreams(1000)])
        let certificate = try Harness(.certificate)
        #expect(certificate.connection.initialMaxConcurrentStreams == 1000)
    }
}

enum Base64URLForTests {
    static func encode(_ text: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let bytes = Array(text.utf8)
        var output = ""
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var value = 0
            for (offset, byte) in chunk.enumerated() { value |= Int(byte) << (16 - 8 * offset) }
            for position in 0...chunk.count { output.append(alphabet[(value >> (18 - 6 * position)) & 63]) }
            index += 3
        }
        return output
    }
}
