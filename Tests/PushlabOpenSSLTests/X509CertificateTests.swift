import Foundation
import Testing
@testable import PushlabOpenSSL

@Suite("X509 certificates")
struct X509CertificateTests {
    private func load(_ name: String) throws -> X509Certificate {
        try X509Certificate(pem: String(contentsOfFile: TestCertificates.path(name), encoding: .utf8))
    }

    @Test func readsApplesTopicsExtensionAsDER() throws {
        let certificate = try load("client.pem")
        let topics = try #require(certificate.extensionValue(oid: "1.2.840.113635.100.6.3.6"))
        // SEQUENCE { UTF8String "com.pushlab.demo", SEQUENCE { UTF8String "app" }, ... }
        #expect(topics.first == 0x30)
        #expect(topics[2] == 0x0C)
        let firstTopicLength = Int(topics[3])
        #expect(String(decoding: topics[4..<4 + firstTopicLength], as: UTF8.self) == "com.pushlab.demo")
    }

    @Test func environmentExtensionsFollowTheCertificateKind() throws {
        let development = "1.2.840.113635.100.6.3.1", production = "1.2.840.113635.100.6.3.2"
        let universal = try load("client.pem")
        #expect(universal.extensionValue(oid: development) != nil && universal.extensionValue(oid: production) != nil)
        let sandboxOnly = try load("client-development.pem")
        #expect(sandboxOnly.extensionValue(oid: development) != nil && sandboxOnly.extensionValue(oid: production) == nil)
        let productionOnly = try load("client-production.pem")
        #expect(productionOnly.extensionValue(oid: development) == nil && productionOnly.extensionValue(oid: production) != nil)
        #expect(try load("client-single-topic.pem").extensionValue(oid: "1.2.840.113635.100.6.3.6") == nil)
    }

    @Test func validityIsReadAsEpochSeconds() throws {
        let expired = try load("client-expired.pem").validity
        #expect(expired.notAfter < Int64(Date().timeIntervalSince1970))
        #expect(expired.notBefore < expired.notAfter)
        let current = try load("client.pem").validity
        #expect(current.notAfter > Int64(Date().timeIntervalSince1970))
    }

    @Test func derRoundTripsThroughOpenSSL() throws {
        let der = try load("server.pem").derBytes
        #expect(der.count > 300)
        #expect(der.first == 0x30)
    }

    @Test func garbageIsAReadableError() {
        #expect(throws: OpenSSLError.self) { try X509Certificate(pem: "not a certificate") }
    }
}
