import PushlabOpenSSL
import Testing

@Suite("ES256Key")
struct ES256KeyTests {
    /// A P-256 key encrypted with the passphrase "secret" (openssl pkcs8 -topk8 -v2 aes-256-cbc).
    static let encrypted = """
-----BEGIN ENCRYPTED PRIVATE KEY-----
MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAi01awwsdzjFQICCAAw
DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEAm5p8Jf4YGWK0kuvTnpY6UEgZCN
dW0bvgiIutoAytyOwIcRV368nSiiADgarlKUOAPEA1UFOd+Ao+KFSESBFyS1WwbU
6j/H2ROTmmHKCSeqS3yEbGlCoRv6NBBYLcsX0G8xeEYw9EMh+aTKFn72mLnlVl7j
/8N/OxSdwvrdqzpwNW7gJQAB4LY+herXPwSoIAOyr+wi1nWlW9mDCHOV8JVHfK4=
-----END ENCRYPTED PRIVATE KEY-----
"""

    @Test func anEncryptedKeyIsAnErrorNotAPrompt() {
        // Without a passphrase callback OpenSSL would ask on the terminal and wait.
        #expect(throws: OpenSSLError.self) { try ES256Key(pem: Self.encrypted) }
    }

    @Test func aFreshKeySignsWhatItsPublicHalfVerifies() throws {
        let key = try ES256Key()
        #expect(key.hasPrivateKey)
        let signature = try key.sign(Array("message".utf8))
        #expect(signature.count == 64)
        #expect(key.isValidSignature(signature, for: Array("message".utf8)))
        #expect(!key.isValidSignature(signature, for: Array("massage".utf8)))
    }

    /// The PEM bytes must stay pinned while OpenSSL reads them: a reader that let them go
    /// failed about one load in ten in an optimised build (a debug build keeps the bytes alive
    /// to the end of the scope, which hid it), more often when other allocations reused the memory.
    @Test func aPEMKeyReadsEveryTime() throws {
        let pem = """
-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEpKOgtEKbJYCHHHxMZvUJyIH8hZ/b
F/nHg1vmRYnpKM13C5kGNvzKTiGVwbbHost7yBAPyt4I7iVso9RSJnWOLw==
-----END PUBLIC KEY-----
"""
        var failures = 0
        var churn: [[UInt8]] = []
        for round in 0..<500 {
            churn.append([UInt8](repeating: UInt8(truncatingIfNeeded: round), count: pem.utf8.count))
            if churn.count > 8 { churn.removeFirst() }
            if (try? ES256Key(pem: pem)) == nil { failures += 1 }
        }
        #expect(failures == 0)
    }
}
