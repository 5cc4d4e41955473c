/// An APNs provider token (ES256 JWT), parsed but not yet verified (reference 4.1).
///
/// Parsing is as lenient as Apple's sample and real clients require: `alg` may be absent,
/// `typ` and extra claims are ignored, `iat` may be a number or a numeric string.
public struct ProviderToken: Sendable, Equatable {
    public var keyID: String
    public var teamID: String
    /// Seconds since 1970.
    public var issuedAt: Int64
    /// `header.claims`, the bytes the signature covers.
    public var signingInput: [UInt8]
    public var signature: [UInt8]

    public enum ParseError: Error, Equatable {
        case malformed(String)
    }

    public static func parse(_ token: Substring) throws(ParseError) -> ProviderToken {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("a JWT has three dot-separated parts, this has \(parts.count)") }
        guard let headerBytes = Base64URL.decode(parts[0]), let claimsBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]), !signature.isEmpty else {
            throw .malformed("a part is not base64url")
        }
        guard let header = try? JSONParser.parse(headerBytes), header.isObject,
              let claims = try? JSONParser.parse(claimsBytes), claims.isObject else {
            throw .malformed("header or claims are not JSON objects")
        }
        if let algorithm = header["alg"], algorithm.stringValue != "ES256" {
            throw .malformed("APNs supports only ES256, not \(algorithm)")
        }
        guard let keyID = header["kid"]?.stringValue, !keyID.isEmpty else { throw .malformed("no kid in the header") }
        guard let teamID = claims["iss"]?.stringValue, !teamID.isEmpty else { throw .malformed("no iss claim") }
        guard var issuedAt = claims["iat"]?.integerValue else { throw .malformed("no numeric iat claim") }
        // Apple's own sample token carries milliseconds; read such a value as milliseconds.
        if issuedAt > 100_000_000_000 { issuedAt /= 1000 }
        return ProviderToken(
            keyID: keyID, teamID: teamID, issuedAt: issuedAt,
            signingInput: Array(token[token.startIndex..<parts[1].endIndex].utf8), signature: signature
        )
    }

    /// Builds the unsigned `header.claims` text for a token (tests, `pushlab token`).
    public static func signingInput(keyID: String, teamID: String, issuedAt: Int64) -> String {
        Base64URL.encode(Array(#"{"alg":"ES256","kid":"\#(keyID)"}"#.utf8)) + "." +
            Base64URL.encode(Array(#"{"iss":"\#(teamID)","iat":\#(issuedAt)}"#.utf8))
    }

    /// Appends a signature to a signing input.
    public static func assemble(signingInput: String, signature: [UInt8]) -> String {
        signingInput + "." + Base64URL.encode(signature)
    }
}
