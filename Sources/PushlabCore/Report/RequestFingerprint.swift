/// Fast 64-bit fingerprints for the report's history of requests: eight bytes a step and a
/// final mix (MurmurHash3's fmix64). Not for anything a client could exploit beyond a false
/// retry in its own report; `Hasher` cost a tenth of the report's time on 250-byte payloads.
enum RequestFingerprint {
    static let start: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// `hash` with `bytes` mixed in.
    static func mix(_ hash: UInt64, _ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash = hash ^ UInt64(bytes.count) &* 0xFF51_AFD7_ED55_8CCD
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = step(hash, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < bytes.count {
            var tail: UInt64 = 0
            for index in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
            hash = step(hash, tail)
        }
        return hash
    }

    static func step(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        var word = word &* 0x87C3_7B91_1142_53D5
        word = (word << 31) | (word >> 33)
        word = word &* 0x4CF5_AD43_2745_937F
        let mixed = hash ^ word
        return ((mixed << 27) | (mixed >> 37)) &* 5 &+ 0x52DC_E729
    }

    static func finish(_ hash: UInt64) -> UInt64 {
        var hash = hash
        hash ^= hash >> 33
        hash = hash &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash = hash &* 0xC4CE_B9FE_1A85_EC53
        return hash ^ (hash >> 33)
    }

    /// A device token's fingerprint: its four words mixed, or its text hashed for any other token.
    static func of(_ token: DeviceTokenKey) -> UInt64 {
        guard let words = token.packedWords else { return UInt64(bitPattern: Int64(token.hashValue)) }
        return finish(step(step(step(step(start, words.0), words.1), words.2), words.3))
    }
}
