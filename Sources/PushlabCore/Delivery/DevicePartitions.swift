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

extension DevicePartitions {
    /// Numbers pushes appended together on from `lastOffsets` (each partition's last offset given),
    /// the one rule every log keeps. `oneRun`: the caller found one partition and a device behind
    /// every push (then the positions are one run, with no array); it may be worked out before
    /// taking the log's lock.
    public func number(_ pushes: [AcceptedPush], oneRun: Bool, after lastOffsets: inout [Int: Int64]) -> LoggedPositions {
        if oneRun {
            let first = lastOffsets[0, default: 0] + 1
            lastOffsets[0] = first + Int64(pushes.count) - 1
            return .run(partition: 0, first: first, count: pushes.count)
        }
        return LoggedPositions(pushes.map { push -> LoggedPushPosition? in
            guard let deviceID = push.deviceID else { return nil }
            let partition = partition(of: deviceID)
            let offset = lastOffsets[partition, default: 0] + 1
            lastOffsets[partition] = offset
            return LoggedPushPosition(partition: partition, offset: offset)
        })
    }

    /// Whether `number` may give `pushes` one run.
    public func numbersAsOneRun(_ pushes: [AcceptedPush]) -> Bool {
        count == 1 && pushes.allSatisfy { $0.deviceID != nil }
    }
}
