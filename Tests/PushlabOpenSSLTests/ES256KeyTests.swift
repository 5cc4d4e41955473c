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
}
