/// 64-bit FNV-1a: a hash that stays the same across processes, unlike `Hasher`. The store writes
/// it to disk (batch index keys, Notification Center entry keys), the simulator picks a device's
/// shard by it, scenarios and dashboard files are fingerprinted by it: it must never change.
public struct FNV1a: Sendable, Equatable {
    public private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    /// The hash of `text`'s UTF-8 bytes.
    public init(_ text: String) {
        add(text)
    }

    public mutating func add(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* Self.prime
    }

    /// The text's UTF-8 bytes, read from its storage: a byte at a time through `String.UTF8View`
    /// cost the store's writer a dozen instructions a byte.
    public mutating func add(_ text: String) {
        var hash = state
        let read: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* Self.prime }
        }
        if read == nil {
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* Self.prime }
        }
        state = hash
    }

    public var value: Int64 { Int64(bitPattern: state) }

    private static let prime: UInt64 = 0x0000_0100_0000_01b3
}
