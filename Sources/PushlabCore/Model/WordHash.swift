/// FNV-1a over eight bytes at a time, then a final mix: a stable 64-bit hash of a few hundred to
/// a few thousand bytes (a payload, a device snapshot), cheap enough for every push. It is
/// kept in memory only, never stored, and is no defence against inputs chosen to collide:
/// callers compare the bytes or accept a repeat as a miss.
public enum WordHash {
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x0000_0100_0000_01b3
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* 0x0000_0100_0000_01b3
            offset += 1
        }
        hash ^= UInt64(bytes.count)
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        return hash
    }
}
