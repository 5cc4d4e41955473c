import Foundation
import Testing
@testable import PushlabOpenSSL

/// `pushlab certs` against `certs/generate.sh`: what it makes must read back, through the same
/// X509Certificate accessors Pushlab's certificate auth uses, exactly as the committed files do.
@Suite("Certificate set (pushlab certs)")
struct CertificateSetTests {
    private let now = Int64(Date().timeIntervalSince1970)
    private let set = CertificateSet(identity: .demo)

    private func committed(_ name: String) throws -> X509Certificate {
        try X509Certificate(pem: String(contentsOfFile: TestCertificates.path(name), encoding: .utf8))
    }

    private func committedKey(_ name: String) throws -> PrivateKey {
        try PrivateKey(pem: String(contentsOfFile: TestCertificates.path(name), encoding: .utf8))
    }

    @Test func theServerCertificateVerifiesAgainstTheNewCAWithEveryName() throws {
        let authority = try set.makeAuthority()
        #expect(authority.certificate.subject == "CN=Pushlab Test CA (for testing only)")
        #expect(CertificateSet.problem(withAuthority: authority.certificate) == nil)
        let server = try set.issue(.server, by: authority)
        #expect(server.certificate.verification(trusting: authority.certificate, purpose: .tlsServer).isTrusted)
        let committedAuthority = try committed("ca.pem")
        #expect(!server.certificate.verification(trusting: committedAuthority, purpose: .tlsServer).isTrusted)
        for name in CertificateSet.serverNames {
            #expect(server.certificate.matches(host: name), "SAN \(name)")
        }
        let committedServer = try committed("server.pem")
        #expect(server.certificate.subjectDER == committedServer.subjectDER)
        #expect(server.key.summary == "EC P-256")
        let lifetime = server.certificate.validity.notAfter - server.certificate.validity.notBefore
        #expect(lifetime == Int64(CertificateSet.leafLifetimeDays) * 86_400)
    }

    @Test(arguments: CertificateSet.Member.allCases.filter { $0 != .server })
    func clientCertificatesReadBackLikeGenerateShs(member: CertificateSet.Member) throws {
        let authority = try set.makeAuthority()
        let made = try set.issue(member, by: authority)
        let reference = try committed(member.certificateFile)
        #expect(made.certificate.subject == reference.subject)
        #expect(made.certificate.subjectDER == reference.subjectDER, "same attributes, order and string types")
        #expect(made.certificate.subjectValues(oid: "0.9.2342.19200300.100.1.1") == ["com.pushlab.demo"])
        // The environment and topic extensions, and Apple's policy OID, byte for byte.
        for oid in ["1.2.840.113635.100.6.3.1", "1.2.840.113635.100.6.3.2", "1.2.840.113635.100.6.3.6",
                    "1.2.840.113635.100.6.3.4", "2.5.29.32", "2.5.29.19", "2.5.29.15", "2.5.29.37"] {
            #expect(made.certificate.extensionValue(oid: oid) == reference.extensionValue(oid: oid), "extension \(oid)")
        }
        #expect(made.key.summary == "RSA 2048")
        let verification = made.certificate.verification(trusting: authority.certificate, purpose: .tlsClient)
        switch member {
        case .clientExpired:
            #expect(verification.isExpired)
            #expect(made.certificate.validity == reference.validity)
        case .clientUntrusted:
            #expect(!verification.isTrusted && !verification.isExpired)
        default:
            #expect(verification.isTrusted, "\(verification)")
        }
    }

    @Test func theTopicListIsAppleShape() throws {
        let client = try set.issue(.client, by: set.makeAuthority())
        let topics = try #require(client.certificate.extensionValue(oid: APNsCertificateExtensions.topicsOID))
        func utf8(_ text: String) -> [UInt8] { [0x0C, UInt8(text.utf8.count)] + Array(text.utf8) }
        func sequence(_ parts: [UInt8]...) -> [UInt8] { let body = parts.flatMap { $0 }; return [0x30, UInt8(body.count)] + body }
        #expect(topics == sequence(
            utf8("com.pushlab.demo"), sequence(utf8("app")),
            utf8("com.pushlab.demo.voip"), sequence(utf8("voip")),
            utf8("com.pushlab.demo.complication"), sequence(utf8("complication"))
        ))
    }

    @Test func generateShsCommittedFilesPassTheChecksForKeeping() throws {
        let authority = try committed("ca.pem")
        let authorityKey = try committedKey("ca-key.pem")
        #expect(authorityKey.matches(authority))
        #expect(CertificateSet.problem(withAuthority: authority) == nil)
        for member in CertificateSet.Member.allCases {
            let certificate = try committed(member.certificateFile)
            let key = try committedKey(member.keyFile)
            #expect(key.matches(certificate), "\(member.keyFile)")
            #expect(set.problem(with: certificate, as: member, authority: authority, now: now) == nil, "\(member)")
        }
    }

    @Test func certificatesForAnotherAppTeamOrCAAreNotKept() throws {
        let authority = try committed("ca.pem")
        let client = try committed("client.pem"), server = try committed("server.pem")
        let other = CertificateSet(identity: try APNsClientIdentity(bundleID: "com.example.app", teamID: "TEAMPUSHLB", organization: "Pushlab Demo"))
        let problem = try #require(other.problem(with: client, as: .client, authority: authority, now: now))
        #expect(problem == "its subject has UID=com.pushlab.demo, CN=Apple Push Services: com.pushlab.demo "
            + "(asked for: UID=com.example.app, CN=Apple Push Services: com.example.app)")
        let otherTeam = CertificateSet(identity: try APNsClientIdentity(bundleID: "com.pushlab.demo", teamID: "OTHERTEAM1", organization: "Pushlab Demo"))
        #expect(otherTeam.problem(with: client, as: .client, authority: authority, now: now) == "its subject has OU=TEAMPUSHLB (asked for: OU=OTHERTEAM1)")
        // The right subject, the wrong kind: a production-only certificate is no universal one.
        let productionOnly = try committed("client-production.pem"), singleTopic = try committed("client-single-topic.pem")
        #expect(set.problem(with: productionOnly, as: .client, authority: authority, now: now) == "it does not allow the development environment")
        #expect(set.problem(with: singleTopic, as: .client, authority: authority, now: now)
            == "its topic list is not app/voip/complication of com.pushlab.demo")
        // Another CA: what it signed no longer verifies; the untrusted certificate still fits.
        let newAuthority = try set.makeAuthority().certificate
        #expect(set.problem(with: server, as: .server, authority: newAuthority, now: now)?.hasPrefix("it does not verify against ca.pem") == true)
        let untrusted = try committed("client-untrusted.pem"), expired = try committed("client-expired.pem")
        #expect(set.problem(with: untrusted, as: .clientUntrusted, authority: newAuthority, now: now) == nil)
        #expect(set.problem(with: expired, as: .clientExpired, authority: newAuthority, now: now) != nil)
        // Two years and three months on, the 825-day leaves are due for renewal.
        #expect(set.problem(with: client, as: .client, authority: authority, now: now + 820 * 86_400) == "it expires within 30 days")
    }

    @Test func aLeafIsNoAuthority() throws {
        let server = try committed("server.pem")
        #expect(CertificateSet.problem(withAuthority: server)?.contains("not a CA certificate") == true)
    }

    @Test func filesCarryTheTestingOnlyCommentAndKeysArePrivate() throws {
        let authority = try set.makeAuthority()
        let client = try set.issue(.client, by: authority)
        let files = try set.authorityFiles(authority) + set.files(of: .client, client) + [set.clientCombinedFile(client)]
        #expect(files.map(\.name) == ["ca.pem", "ca-key.pem", "client.pem", "client-key.pem", "client-combined.pem"])
        #expect(files.map(\.isPrivate) == [false, true, false, true, true])
        for file in files {
            let lines = file.contents.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines[0].hasPrefix("# Pushlab TEST ") && lines[0].hasSuffix(" - for testing only, never trust or use it outside tests"))
            #expect(lines[1].hasPrefix("# \(file.name): "))
            #expect(lines[2].hasPrefix("-----BEGIN "))
        }
        #expect(files[2].contents.contains("# client.pem: APNs client cert for com.pushlab.demo, development+production, topics app/voip/complication\n"))
        #expect(try X509Certificate(pem: files[2].contents).derBytes == client.certificate.derBytes)
        #expect(try PrivateKey(pem: files[4].contents).matches(client.certificate))
        let chain = try set.serverChainFile(server: set.issue(.server, by: authority).certificate, authority: authority.certificate)
        #expect(chain.contents.components(separatedBy: "-----BEGIN CERTIFICATE-----").count == 3)
    }
}
