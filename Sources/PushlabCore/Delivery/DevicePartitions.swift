/// Which partition of the log a device's pushes go to: by a stable hash of its id (`FNV1a`, the
/// same on every run and every machine), so that a restarted or another node finds them where
/// they were put.
public struct DevicePartitions: Sendable, Equatable {
    public let count: Int

    /// At least one.
    public init(count: Int) {
        self.count = max(1, count)
    }

    public func partition(of deviceID: String) -> Int {
        count == 1 ? 0 : Int(FNV1a(deviceID).state % UInt64(count))
    }
}
