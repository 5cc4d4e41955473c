/// 64-bit FNV-1a, a byte at a time: the store's keys (a device's or token's in the batch index, an
/// entry's in `notificationEntries`). They are written to disk, so this must never change.
struct FNV1a {
    private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ byte: UInt8) {
        state ^= UInt64(byte)
        state &*= 0x0000_0100_0000_01b3
    }
    var value: Int64 { Int64(bitPattern: state) }
}
