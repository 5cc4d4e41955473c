/// Redis Cluster's key → slot rule: CRC16 (XMODEM) of the key, or of its hash tag (the part
/// between the first `{` and the next `}`, when not empty), modulo 16384
/// (https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/#hash-tags).
/// Keys that share a tag share a slot, so one master takes them in one round trip.
public enum HashSlot {
    public static let count = 16_384

    public static func of(_ key: some Collection<UInt8>) -> Int {
        Int(crc16(tag(of: key)) % UInt16(count))
    }

    public static func of(_ key: String) -> Int { of(Array(key.utf8)) }

    /// The bytes that decide the slot: the hash tag if there is one, else the whole key.
    static func tag<Key: Collection<UInt8>>(of key: Key) -> Key.SubSequence {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")) else { return key[...] }
        let afterOpen = key.index(after: open)
        guard let close = key[afterOpen...].firstIndex(of: UInt8(ascii: "}")), close != afterOpen else { return key[...] }
        return key[afterOpen..<close]
    }

    static func crc16(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int((crc >> 8) ^ UInt16(byte))]
        }
        return crc
    }

    /// CRC16-CCITT (polynomial 0x1021), one entry a byte value.
    private static let table: [UInt16] = (0..<256).map { value in
        var crc = UInt16(value) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
