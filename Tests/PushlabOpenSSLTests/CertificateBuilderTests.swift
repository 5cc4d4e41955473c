import Foundation
import Testing
@testable import PushlabOpenSSL

@Suite("Certificate builder")
struct CertificateBuilderTests {
    private let now = Int64(Date().timeIntervalSince1970)

    private func makeAuthority() throws -> CertificateWithKey {
        try CertificateBuilder.certificateAuthority(commonName: "Builder Test CA", validity: .days(30))
            .issue(withNewKey: PrivateKey.generateP256, issuer: nil)
    }

    @Test func aSelfSignedAuthorityVerifiesAgainstItself() throws {
        let authority = try makeAuthority()
        #expect(authority.certificate.isCertificateAuthority)
        #expect(authority.certificate.verification(trusting: authority.certificate).isTrusted)
        #expect(authority.certificate.subject == "CN=Builder Test CA")
        let validity = authority.certificate.validity
        #expect(abs(validity.notBefore - now) < 60)
        #expect(abs(validity.notAfter - (now + 30 * 86_400)) < 60)
    }

    @Test func aServerCertificateVerifiesAgainstItsAuthorityAndNoOther() throws {
        let authority = try makeAuthority(), stranger = try makeAuthority()
        let server = try CertificateBuilder
            .tlsServer(commonName: "localhost", names: ["localhost", "127.0.0.1", "::1", "api.push.apple.com"], validity: .days(10))
            .issue(withNewKey: PrivateKey.generateP256, issuer: authority)
        #expect(server.certificate.verification(trusting: authority.certificate, purpose: .tlsServer).isTrusted)
        #expect(!server.certificate.verification(trusting: authority.certificate, purpose: .tlsClient).isTrusted, "EKU is serverAuth only")
        #expect(!server.certificate.verification(trusting: stranger.certificate, purpose: .tlsServer).isTrusted)
        #expect(!server.certificate.isCertificateAuthority)
        for name in ["localhost", "127.0.0.1", "::1", "0:0:0:0:0:0:0:1", "api.push.apple.com"] {
            #expect(server.certificate.matches(host: name), "\(name)")
        }
        for name in ["example.com", "10.0.0.1", "api.sandbox.push.apple.com"] {
            #expect(!server.certificate.matches(host: name), "\(name)")
        }
    }

    @Test func fixedDatesMakeAnExpiredCertificateThatIsOtherwiseSigned() throws {
        let authority = try makeAuthority()
        let expired = try CertificateBuilder(
            subject: DistinguishedName([.init(.commonName, "old")]),
            validity: .between(notBefore: 1_577_836_800, notAfter: 1_609_459_200),
            extensions: [.configured("basicConstraints", "critical, CA:FALSE")]
        ).issue(withNewKey: PrivateKey.generateP256, issuer: authority)
        #expect(expired.certificate.validity == (1_577_836_800, 1_609_459_200))
        #expect(expired.certificate.verification(trusting: authority.certificate).isExpired)
        #expect(expired.certificate.verification(trusting: authority.certificate, checkingTime: false).isTrusted)
    }

    @Test func keysAndCertificatesRoundTripThroughPEM() throws {
        let authority = try makeAuthority()
        let rsa = try PrivateKey.generateRSA()
        #expect(rsa.summary == "RSA 2048")
        #expect(authority.key.summary == "EC P-256")
        let keyPEM = try rsa.pem()
        #expect(keyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let certificate = try CertificateBuilder(subject: DistinguishedName([.init(.commonName, "rsa")]), validity: .days(1), extensions: [])
            .issue(for: rsa, issuer: authority)
        #expect(try PrivateKey(pem: "# a comment line\n" + keyPEM).matches(certificate))
        #expect(!authority.key.matches(certificate))
        let reread = try X509Certificate(pem: "# a comment line\n" + certificate.pem())
        #expect(reread.derBytes == certificate.derBytes)
        #expect(throws: OpenSSLError.self) { try CertificateWithKey(certificate: certificate, key: authority.key) }
        #expect(throws: OpenSSLError.self) { try PrivateKey(pem: "not a key") }
    }

    @Test func rawDERExtensionsAreStoredAsGiven() throws {
        let authority = try makeAuthority()
        let value: [UInt8] = [0x30, 0x03, 0x0C, 0x01, 0x41]
        let certificate = try CertificateBuilder(
            subject: DistinguishedName([.init(.commonName, "der")]), validity: .days(1),
            extensions: [.der(oid: "1.2.3.4.5", critical: false, value: value)]
        ).issue(for: PrivateKey.generateP256(), issuer: authority)
        #expect(certificate.extensionValue(oid: "1.2.3.4.5") == value)
    }

    @Test func longNamesAndLongTopicListsAreEncoded() throws {
        // "Apple Push Services: " + 120 characters: past X.520's 64-character bound, as Apple allows.
        let bundleID = "com.example." + String(repeating: "a", count: 108)
        let identity = try APNsClientIdentity(bundleID: bundleID, teamID: "TEAM123456", organization: "Example")
        let set = CertificateSet(identity: identity)
        let client = try set.issue(.client, by: set.makeAuthority())
        #expect(client.certificate.subjectValues(oid: DistinguishedName.Attribute.commonName.oid) == ["Apple Push Services: " + bundleID])
        let topics = try #require(client.certificate.extensionValue(oid: APNsCertificateExtensions.topicsOID))
        // SEQUENCE with a two-byte long-form length
        #expect(Array(topics.prefix(2)) == [0x30, 0x82])
        #expect(Int(topics[2]) << 8 | Int(topics[3]) == topics.count - 4)
        #expect(topics[4] == 0x0C && topics[5] == 120 && String(decoding: topics[6..<126], as: UTF8.self) == bundleID)
    }

    @Test func identitiesApplePushServicesCannotHaveAreRefused() throws {
        for bad in ["", "com example", ".com.example", "com/example", "ç.example"] {
            #expect(throws: APNsClientIdentity.InvalidIdentity.self) {
                try APNsClientIdentity(bundleID: bad, teamID: "TEAMPUSHLB", organization: "Org")
            }
        }
        #expect(throws: APNsClientIdentity.InvalidIdentity.self) {
            try APNsClientIdentity(bundleID: "com.example.app", teamID: "TEAM-1", organization: "Org")
        }
        #expect(throws: APNsClientIdentity.InvalidIdentity.self) {
            try APNsClientIdentity(bundleID: "com.example.app", teamID: "TEAM1", organization: "line\nbreak")
        }
        let error = try #require(throws: APNsClientIdentity.InvalidIdentity.self) {
            try APNsClientIdentity(bundleID: "com example", teamID: "TEAM1", organization: "Org")
        }
        #expect(error.description.contains("bad bundle id 'com example'"))
        #expect(try APNsClientIdentity(bundleID: "com.example.app-2", teamID: "ABCDE12345", organization: "Ünïcode & Co. (Test)").teamID == "ABCDE12345")
    }
}
