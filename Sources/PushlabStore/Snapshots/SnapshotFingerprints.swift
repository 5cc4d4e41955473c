import PushlabCore

/// What the writer last committed of each device, as a 64-bit hash of its snapshot's bytes: a
/// device whose only change since is its Notification Center (kept apart) or nothing at all is
/// not written again. Under a load test that is nearly every device on every pass.
///
/// Keyed by a hash of the device id too, so a million devices cost about 16 bytes each: two
/// ids that share a key only make one of them be written when it need not be.
struct SnapshotFingerprints: Sendable {
    /// One device's snapshot as written in a batch, recorded once the batch commits.
    struct Written: Sendable {
        let key: Int64
        let fingerprint: UInt64?
    }

    private var saved: [Int64: UInt64] = [:]

    /// The entry to record if `bytes` are written for `deviceID`, or nil when the last
    /// committed snapshot was the same.
    func unsaved(_ deviceID: String, _ bytes: [UInt8]) -> Written? {
        let key = BatchIndexRows.key(deviceID)
        let fingerprint = Self.fingerprint(bytes)
        return saved[key] == fingerprint ? nil : Written(key: key, fingerprint: fingerprint)
    }

    /// A removed device: its next snapshot (if it comes back) is written whatever it holds.
    static func removed(_ deviceID: String) -> Written { Written(key: BatchIndexRows.key(deviceID), fingerprint: nil) }

    /// After the batch that wrote them committed: a failed batch records nothing, so its retry
    /// writes every device again.
    mutating func record(_ written: [Written]) {
        for entry in written { saved[entry.key] = entry.fingerprint }
    }

    static func fingerprint(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes(WordHash.hash)
    }
}
