import PushlabCore

/// How far one move of the clock may reach. Whatever falls due on the way happens at its own
/// time, so a repeating local notification and a long jump (a minute's repeat over 100 years is
/// 52 million firings, each with its observations) would hold one call for hours; such a move
/// is refused before anything moves.
extension DeviceSimulator {
    /// The most local-notification firings one advance, set or return to real time may run.
    public static let firingsPerClockMove = 100_000

    /// Refuses (conflict) a move of the clock to `time` that would fire more local
    /// notifications than `firingsPerClockMove`.
    public func checkClockMove(to time: EpochMilliseconds) throws(SimulatorError) {
        guard localFirings(until: time, limit: Self.firingsPerClockMove + 1) > Self.firingsPerClockMove else { return }
        throw SimulatorError(.conflict, """
            Moving the clock to \(ISO8601Milliseconds.format(time)) would fire more than \(Self.firingsPerClockMove) local notifications \
            (a repeating one fires at every repeat on the way): move it in smaller steps, or cancel the repeating ones first
            """)
    }

    /// The local notifications that fire by `time` on every device, each repeat counted, up to `limit`.
    func localFirings(until time: EpochMilliseconds, limit: Int) -> Int {
        var count = 0
        forEachShard(settling: false) { shard in
            for (deviceID, due) in shard.dueTimes where due <= time && count < limit {
                guard let device = shard.devices[deviceID] else { continue }
                for notification in device.apps.lazy.flatMap(\.pendingLocal) {
                    var next = notification.nextFireTime
                    while let fire = next, fire <= time, count < limit {
                        count += 1
                        next = notification.trigger.fireTime(after: fire, utcOffsetSeconds: device.utcOffsetSeconds)
                    }
                }
            }
        }
        return count
    }
}
