import COpenSSL

/// One-shot message digests (GeTui's auth sign is SHA-256 of a string).
public enum Digest {
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        var length: UInt32 = 0
        let done = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest fails only without memory or with a broken OpenSSL: nothing a caller could do.
        precondition(done == 1 && length == SHA256_DIGEST_LENGTH, "EVP_Digest(SHA-256) failed")
        return digest
    }
}
