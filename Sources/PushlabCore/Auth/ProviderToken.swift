/// An APNs provider token (ES256 JWT), parsed but not yet verified (reference 4.1).
///
/// Parsing is as lenient as Apple's sample and real clients require: `alg` may be absent,
/// `typ` and extra claims (`exp` too) are ignored, `iat` may be a number or a numeric string,
/// whole or fractional (RFC 7519's NumericDate; PyAPNs2 sends `time.time()`).
public struct ProviderToken: Sendable, Equatable {
    public var keyID: String
    public var teamID: String
    /// `iat` in milliseconds since 1970: a fractional `iat` keeps its fraction for the age rules.
    public var issuedAtMilliseconds: Int64
    /// `iat` in whole seconds since 1970.
    public var issuedAt: Int64 {
        issuedAtMilliseconds >= 0 ? issuedAtMilliseconds / 1000 : (issuedAtMilliseconds - 999) / 1000
    }
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
        guard let issuedAt = claims["iat"].flatMap(Self.issuedAtMilliseconds) else { throw .malformed("no numeric iat claim") }
        return ProviderToken(
            keyID: keyID, teamID: teamID, issuedAtMilliseconds: issuedAt,
            signingInput: Array(token[token.startIndex..<parts[1].endIndex].utf8), signature: signature
        )
    }

    /// `iat` as milliseconds: seconds, whole or fractional, as a number or a numeric string; a
    /// value above 10^11 is already milliseconds (Apple's own sample token carries them).
    static func issuedAtMilliseconds(_ claim: JSONValue) -> Int64? {
        let value: Double
        switch claim {
        case .number(let number): value = number
        case .string(let text):
            // Digits, a sign and a point only: no exponent, `inf` or `nan` in a string.
            guard text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                  let number = Double(text) else { return nil }
            value = number
        default: return nil
        }
        guard value.isFinite, abs(value) < 1e15 else { return nil }
        let milliseconds = value > 100_000_000_000 ? value : value * 1000
        return Int64(milliseconds.rounded(.down))
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
