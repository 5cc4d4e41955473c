/// Who an APNs client certificate is for: the app (bundle id, the UID and first topic), the team
/// (OU) and the organisation (O).
public struct APNsClientIdentity: Equatable, Sendable {
    public let bundleID: String
    public let teamID: String
    public let organization: String

    /// What certs/generate.sh and the committed certs/ use.
    public static let demo = try! APNsClientIdentity(bundleID: "com.pushlab.demo", teamID: "TEAMPUSHLB", organization: "Pushlab Demo")

    /// Refuses values Apple would not issue, with a message that says what is allowed.
    /// Bundle ids and team ids follow generate.sh's rules, so both tools take the same input.
    public init(bundleID: String, teamID: String, organization: String) throws {
        let letterOrDigit = { (c: Unicode.Scalar) in c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c)) }
        guard let first = bundleID.unicodeScalars.first, letterOrDigit(first),
              bundleID.unicodeScalars.allSatisfy({ letterOrDigit($0) || $0 == "." || $0 == "-" }) else {
            throw InvalidIdentity("bad bundle id '\(bundleID)': use letters, digits, '.' and '-', starting with a letter or digit (e.g. com.example.app)")
        }
        guard bundleID.utf8.count <= 200 else { throw InvalidIdentity("bundle id too long (\(bundleID.utf8.count) characters, at most 200)") }
        guard (1...32).contains(teamID.utf8.count), teamID.unicodeScalars.allSatisfy(letterOrDigit) else {
            throw InvalidIdentity("bad team id '\(teamID)': use 1 to 32 letters and digits (Apple's are 10, e.g. ABCDE12345)")
        }
        guard !organization.isEmpty, organization.count <= 64,
              organization.unicodeScalars.allSatisfy({ !$0.properties.generalCategory.isControl }) else {
            throw InvalidIdentity("bad organisation '\(organization)': 1 to 64 characters, no control characters")
        }
        self.bundleID = bundleID
        self.teamID = teamID
        self.organization = organization
    }

    /// `UID=<bundle id>, CN=Apple Push Services: <bundle id>, OU=<team id>, O=<org>, C=US`, the
    /// order Apple writes it in.
    public var subject: DistinguishedName {
        DistinguishedName([
            .init(.userID, bundleID),
            .init(.commonName, "Apple Push Services: \(bundleID)"),
            .init(.organizationalUnit, teamID),
            .init(.organization, organization),
            .init(.country, "US"),
        ])
    }

    public struct InvalidIdentity: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

private extension Unicode.GeneralCategory {
    var isControl: Bool {
        switch self {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
