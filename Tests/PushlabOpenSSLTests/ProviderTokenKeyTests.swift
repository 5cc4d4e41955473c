import Foundation
import Testing
@testable import PushlabOpenSSL

/// The token key files `pushlab certs` makes next to the certificates, against the committed ones.
@Suite("Provider-token key files (pushlab certs)")
struct ProviderTokenKeyTests {
    private let set = CertificateSet(identity: .demo)

    private func committed(_ name: String) throws -> String {
        try String(contentsOfFile: TestCertificates.path(name), encoding: .utf8)
    }

    @Test func sampleKeyJSONIsTheCommittedOne() throws {
        #expect(set.sampleKeyFile(keyID: "PUSHLAB001").contents == (try committed("sample-key.json")))
    }

    @Test func theCommittedKeyIsKeptAndItsPublicHalfIsTheCommittedOne() throws {
        let key = try CertificateSet.tokenKey(from: committed("AuthKey_PUSHLAB001.p8")).get()
        let files = try set.tokenKeyFiles(key, keyID: "PUSHLAB001")
        #expect(files.privateKey.contents == (try committed("AuthKey_PUSHLAB001.p8")) && files.privateKey.isPrivate)
        #expect(files.publicKey.contents == (try committed("AuthKey_PUSHLAB001.pub.pem")))
    }

    @Test func aNewKeyIsP256PKCS8WithoutComments() throws {
        let files = try set.tokenKeyFiles(PrivateKey.generateP256(), keyID: "ABC123DEFG")
        #expect(files.privateKey.name == "AuthKey_ABC123DEFG.p8" && files.publicKey.name == "AuthKey_ABC123DEFG.pub.pem")
        #expect(files.privateKey.contents.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try ES256Key(pem: files.privateKey.contents).hasPrivateKey)
        #expect(try !ES256Key(pem: files.publicKey.contents).hasPrivateKey)
    }

    @Test func keysThatCannotStayAreRefusedWithAReason() throws {
        let commented = "# a comment\n" + (try committed("AuthKey_PUSHLAB001.p8"))
        #expect(throws: CertificateSet.TokenKeyProblem.self) { try CertificateSet.tokenKey(from: commented).get() }
        let rsa = try PrivateKey.generateRSA().pem()
        #expect(throws: CertificateSet.TokenKeyProblem.self) { try CertificateSet.tokenKey(from: rsa).get() }
    }

    @Test(arguments: ["", "KEY-1", String(repeating: "A", count: 33), "KÉY"])
    func badKeyIDsAreExplained(keyID: String) {
        #expect(CertificateSet.problem(withKeyID: keyID)?.contains("bad key id") == true)
    }
}
