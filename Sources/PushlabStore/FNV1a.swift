/// 64-bit FNV-1a, a byte at a time: the store's keys (a device's or token's in the batch index, an
/// entry's in `notificationEntries`). They are written to disk, so this must never change.
struct FNV1a {
    private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ byte: UInt8) {
        state ^= UInt64(byte)
        state &*= 0x0000_0100_0000_01b3
    }
    /// The text's UTF-8 bytes, read from its storage: a byte at a time through `String.UTF8View`
    /// cost the writer a dozen instructions a byte.
    mutating func add(_ text: String) {
        var hash = state
        let read: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        if read == nil {
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        state = hash
    }

    var value: Int64 { Int64(bitPattern: state) }
}
