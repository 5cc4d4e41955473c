import PushlabCore

/// An app registered with GeTui: its ids from the developer centre, and the APNs credentials
/// uploaded there.
public struct GeTuiApp: Sendable, Equatable {
    public var appID: String
    public var appKey: String
    public var masterSecret: String
    public var bundleID: String
    public var apnsCredential: APNsCredential

    public init(appID: String, appKey: String, masterSecret: String, bundleID: String, apnsCredential: APNsCredential) {
        self.appID = appID
        self.appKey = appKey
        self.masterSecret = masterSecret
        self.bundleID = bundleID
        self.apnsCredential = apnsCredential
    }
}

/// `POST /v2/{appId}/auth` and the tokens it gives out, for one app. The sign is SHA-256 of
/// appkey + timestamp + mastersecret in lower-case hexadecimal [DOC]; a token lasts a day [DOC];
/// getting one does not end the others [a GeTui maintainer, in the Java SDK's issues]; the
/// endpoint takes 100 calls a minute [DOC], past which it answers 10003.
public struct GeTuiTokens: Sendable {
    public static let lifetimeMilliseconds: Int64 = 86_400_000
    public static let authenticationsPerMinute = 100
    /// How far the request's timestamp may be from the server's clock. GeTui documents none
    /// ("误差太大可能出错"); ten minutes [INF], configurable.
    public var allowedSkewMilliseconds: Int64 = 600_000

    private var tokens: [String: EpochMilliseconds] = [:]
    private var minute: (start: EpochMilliseconds, count: Int) = (0, 0)
    private var ids: APNsIDGenerator

    public init(seed: UInt64) {
        ids = APNsIDGenerator(seed: seed)
    }

    public struct Issued: Sendable, Equatable {
        public var token: String
        public var expiresAt: EpochMilliseconds

        /// `{"code":0,"msg":"success","data":{"expire_time":"…","token":"…"}}`: `expire_time` is a
        /// string of milliseconds [DOC].
        public var body: String {
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("code", Int64(0))
            writer.field("msg", "success")
            writer.key("data")
            writer.beginObject()
            writer.field("expire_time", String(expiresAt))
            writer.field("token", token)
            writer.endObject()
            writer.endObject()
            return writer.text
        }
    }

    /// Checks an auth body; `sha256` is the digest (the adapter's OpenSSL), kept out of this pure code.
    public mutating func authenticate(
        _ body: [UInt8], app: GeTuiApp, now: EpochMilliseconds, sha256: ([UInt8]) -> [UInt8]
    ) -> Result<Issued, GeTuiError> {
        if now - minute.start >= 60_000 { minute = (now - now % 60_000, 0) }
        minute.count += 1
        guard minute.count <= Self.authenticationsPerMinute else { return .failure(GeTuiError(.authenticationRateExceeded)) }
        guard let json = try? JSONParser.parse(body), json.isObject else { return .failure(GeTuiError(.invalidParameter, "request body must be JsonString")) }
        guard let sign = json["sign"]?.stringValue, !sign.isEmpty else { return .failure(.empty("sign")) }
        guard let appKey = json["appkey"]?.stringValue, !appKey.isEmpty else { return .failure(.empty("appkey")) }
        guard let stamp = json["timestamp"] else { return .failure(.empty("timestamp")) }
        // A number (the Java SDK) or a string of one (the documentation's table).
        let timestampText: String
        switch stamp {
        case .string(let text): timestampText = text
        case .number: timestampText = stamp.integerValue.map(String.init) ?? ""
        default: timestampText = ""
        }
        guard timestampText.count == 13, let timestamp = Int64(timestampText) else { return .failure(.invalid("timestamp")) }
        guard appKey == app.appKey else { return .failure(.invalid("appkey")) }
        let expected = Self.hex(sha256(Array((app.appKey + timestampText + app.masterSecret).utf8)))
        // GeTui answers a clock too far off as a bad sign (its maintainers: "校准系统时间").
        guard sign.lowercased() == expected, abs(now - timestamp) <= allowedSkewMilliseconds else { return .failure(.invalid("sign")) }
        let token = ids.hex(bytes: 32)
        let expiresAt = now + Self.lifetimeMilliseconds
        tokens[token] = expiresAt
        return .success(Issued(token: token, expiresAt: expiresAt))
    }

    /// The `token` header of any other call: 10001 when absent, unknown, revoked or expired.
    public mutating func check(_ token: String?, now: EpochMilliseconds) -> GeTuiError? {
        guard let token, let expiresAt = tokens[token] else { return GeTuiError(.tokenInvalid) }
        guard now < expiresAt else {
            tokens[token] = nil
            return GeTuiError(.tokenInvalid)
        }
        return nil
    }

    /// `DELETE /v2/{appId}/auth/{token}`.
    public mutating func revoke(_ token: String) {
        tokens[token] = nil
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
