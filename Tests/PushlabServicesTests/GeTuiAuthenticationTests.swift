import PushlabCore
import PushlabOpenSSL
@testable import PushlabServices
import Testing

@Suite struct GeTuiAuthenticationTests {
    static let app = GeTuiApp(
        appID: "aaaaa", appKey: "myAppKey", masterSecret: "myMasterSecret", bundleID: "com.example.app",
        apnsCredential: .signingKey(path: "AuthKey.p8", keyID: "KEY1", teamID: "TEAM1")
    )
    static let now: EpochMilliseconds = 1_608_172_111_917

    static func body(sign: String? = nil, timestamp: JSONValue = .string("1608172111917"), appKey: String = "myAppKey") -> [UInt8] {
        // The sign of the documented recipe, worked out independently (Python's hashlib).
        let sign = sign ?? "a7eca9212fcfc004813c5f84127dcab82092605ade4b3261e55385121cc6c51e"
        return Array(JSONValue.object([("sign", .string(sign)), ("timestamp", timestamp), ("appkey", .string(appKey))]).description.utf8)
    }

    @Test func aSignedRequestGetsATokenForADay() throws {
        var tokens = GeTuiTokens(seed: 1)
        let issued = try tokens.authenticate(Self.body(), app: Self.app, now: Self.now, sha256: Digest.sha256).get()
        #expect(issued.token.count == 64 && issued.expiresAt == Self.now + 86_400_000)
        #expect(issued.body == #"{"code":0,"msg":"success","data":{"expire_time":"1608258511917","token":"\#(issued.token)"}}"#)
        #expect(tokens.check(issued.token, now: Self.now + 86_399_999) == nil)
        #expect(tokens.check(issued.token, now: Self.now + 86_400_000)?.code == .tokenInvalid, "a day later")
        let number = try tokens.authenticate(Self.body(timestamp: .number(1_608_172_111_917)), app: Self.app, now: Self.now, sha256: Digest.sha256).get()
        #expect(number.token != issued.token, "the timestamp as a number, as the Java SDK sends it; a new token")
    }

    @Test func tokensEndWhenRevokedAndNotBeforeAnotherIsIssued() throws {
        var tokens = GeTuiTokens(seed: 1)
        let first = try tokens.authenticate(Self.body(), app: Self.app, now: Self.now, sha256: Digest.sha256).get()
        let second = try tokens.authenticate(Self.body(), app: Self.app, now: Self.now, sha256: Digest.sha256).get()
        #expect(tokens.check(first.token, now: Self.now) == nil && tokens.check(second.token, now: Self.now) == nil)
        tokens.revoke(first.token)
        #expect(tokens.check(first.token, now: Self.now)?.httpStatus == 401)
        #expect(tokens.check(nil, now: Self.now)?.body == #"{"code":10001,"msg":"token错误/失效"}"#)
    }

    @Test(arguments: [
        (body(sign: String(repeating: "0", count: 64)), "sign is invalid"),
        (body(appKey: "otherKey"), "appkey is invalid"),
        (body(timestamp: .string("16081721119")), "timestamp is invalid"),
        (Array(#"{"timestamp":"1608172111917","appkey":"myAppKey"}"#.utf8), "sign can not be empty"),
        (Array("[]".utf8), "request body must be JsonString"),
    ])
    func badRequestsAre20001(body: [UInt8], message: String) {
        var tokens = GeTuiTokens(seed: 1)
        guard case .failure(let error) = tokens.authenticate(body, app: Self.app, now: Self.now, sha256: Digest.sha256) else {
            Issue.record("accepted")
            return
        }
        #expect(error.code == .invalidParameter && error.httpStatus == 400 && error.message == message)
    }

    @Test func aClockTooFarOffIsABadSign() {
        var tokens = GeTuiTokens(seed: 1)
        let result = tokens.authenticate(Self.body(), app: Self.app, now: Self.now + 600_001, sha256: Digest.sha256)
        guard case .failure(let error) = result else {
            Issue.record("accepted a timestamp ten minutes and a millisecond old")
            return
        }
        #expect(error.message == "sign is invalid")
    }

    @Test func theHundredAndFirstAuthenticationInAMinuteIs10003() {
        var tokens = GeTuiTokens(seed: 1)
        let start = Self.now - Self.now % 60_000
        for _ in 0..<100 { _ = tokens.authenticate(Self.body(), app: Self.app, now: start + 1_000, sha256: Digest.sha256) }
        guard case .failure(let error) = tokens.authenticate(Self.body(), app: Self.app, now: start + 2_000, sha256: Digest.sha256) else {
            Issue.record("a 101st authentication within the minute was accepted")
            return
        }
        #expect(error.code == .authenticationRateExceeded && error.httpStatus == 401)
        #expect((try? tokens.authenticate(Self.body(), app: Self.app, now: start + 60_000, sha256: Digest.sha256).get()) != nil, "the next minute")
    }
}
