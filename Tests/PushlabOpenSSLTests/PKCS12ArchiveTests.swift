import Foundation
import Testing
@testable import PushlabOpenSSL

/// `client.p12` as `pushlab certs` makes it: it reads back with its password, and only with it.
@Suite("PKCS#12 archives (client.p12)")
struct PKCS12ArchiveTests {
    private let set = CertificateSet(identity: .demo)

    @Test func anArchiveReadsBackWithTheSameCertificateKeyAndCA() throws {
        let authority = try set.makeAuthority()
        let client = try set.issue(.client, by: authority)
        let file = try set.clientPKCS12File(client, authority: authority.certificate, password: "pushlab")
        #expect(file.name == "client.p12" && file.isPrivate)
        let archive = try PKCS12Archive(der: file.bytes, password: "pushlab")
        #expect(archive.identity.certificate.derBytes == client.certificate.derBytes)
        #expect(try archive.identity.key.pem() == client.key.pem())
        #expect(archive.authorities.map(\.derBytes) == [authority.certificate.derBytes])
        #expect(CertificateSet.pkcs12(file.bytes, holds: client.certificate, authority: authority.certificate, password: "pushlab"))
        let other = try set.issue(.client, by: authority)
        #expect(!CertificateSet.pkcs12(file.bytes, holds: other.certificate, authority: authority.certificate, password: "pushlab"))
    }

    @Test(arguments: ["wrong", "", "Pushlab"])
    func aWrongPasswordIsRefusedAsSuch(password: String) throws {
        let authority = try set.makeAuthority()
        let der = try PKCS12Archive(identity: set.issue(.client, by: authority), authorities: [authority.certificate])
            .der(password: "pushlab", friendlyName: set.pkcs12FriendlyName)
        #expect { try PKCS12Archive(der: der, password: password) } throws: { error in
            (error as? PKCS12ReadError)?.reason == .wrongPassword
        }
        #expect(!CertificateSet.pkcs12(der, holds: authority.certificate, authority: authority.certificate, password: password))
    }

    @Test func anEmptyPasswordWorksBothWays() throws {
        let authority = try set.makeAuthority()
        let client = try set.issue(.clientDevelopment, by: authority)
        let der = try PKCS12Archive(identity: client).der(password: "", friendlyName: nil)
        #expect(try PKCS12Archive(der: der, password: "").identity.certificate.derBytes == client.certificate.derBytes)
        #expect(throws: PKCS12ReadError.self) { try PKCS12Archive(der: der, password: "pushlab") }
    }

    @Test func theCommittedClientP12HoldsClientPemAndTheCA() throws {
        let archive = try PKCS12Archive(file: TestCertificates.path("client.p12"), password: "pushlab")
        let client = try X509Certificate(pem: String(contentsOfFile: TestCertificates.path("client.pem"), encoding: .utf8))
        let authority = try X509Certificate(pem: String(contentsOfFile: TestCertificates.path("ca.pem"), encoding: .utf8))
        #expect(archive.identity.certificate.derBytes == client.derBytes)
        #expect(archive.authorities.map(\.derBytes) == [authority.derBytes])
    }

    @Test func pkcs12IsToldFromPEMByContent() {
        #expect(PKCS12Archive.isPKCS12(file: TestCertificates.path("client.p12")))
        #expect(!PKCS12Archive.isPKCS12(file: TestCertificates.path("client.pem")))
        #expect(!PKCS12Archive.isPKCS12(file: TestCertificates.path("client-combined.pem")))
        #expect(!PKCS12Archive.isPKCS12(file: "/nonexistent.p12"))
    }

    @Test func garbageIsNotPKCS12() {
        #expect { try PKCS12Archive(der: Array("not a p12".utf8), password: "pushlab") } throws: { error in
            (error as? PKCS12ReadError)?.reason == .notPKCS12
        }
    }
}
