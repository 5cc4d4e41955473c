import PushlabCore

/// What a store needs: the devices changed since it last asked, and a way to load them back.
extension DeviceSimulator {
    public struct Changes: Sendable {
        public var changed: [SimulatedDevice]
        public var removed: [String]
        public var isEmpty: Bool { changed.isEmpty && removed.isEmpty }
    }

    /// Devices changed or removed since the last call, and forgets them. Queued pushes stay
    /// queued: the store asks often and must not do the worker's job.
    public func takeChanges() -> Changes {
        var changes = Changes(changed: [], removed: [])
        forEachShard(settling: false) { shard in
            for id in shard.changed { if let device = shard.devices[id] { changes.changed.append(device) } }
            changes.removed += shard.removed
            shard.changed = []
            shard.removed = []
        }
        return changes
    }

    /// Devices changed or removed that `takeChanges` has not handed out yet.
    public var unsavedChangeCount: Int {
        var count = 0
        forEachShard(settling: false) { count += $0.changed.count + $0.removed.count }
        return count
    }

    /// Replaces every device with `devices` (a store's saved state, a scenario reset). Tokens are
    /// registered in the world; what was due while the server was down happens at the next tick.
    /// The new devices count as changed and the old ones as removed, for the store.
    public func replaceAll(with devices: [SimulatedDevice]) throws(SimulatorError) {
        var removedTokens: [(token: String, deviceID: String)] = []
        var removedIDs: [String] = []
        forEachShard { shard in
            for device in shard.devices.values {
                removedTokens += device.tokenRecords.map { ($0.token, device.id) }
                removedIDs.append(device.id)
            }
            let pendingRemovals = shard.removed
            shard = Shard()
            shard.removed = pendingRemovals
        }
        // Only tokens the world still ties to the device: a reset world may have reused one.
        for (token, deviceID) in removedTokens where world.token(token)?.deviceID == deviceID { world.forget(token: token) }
        try addDevices(devices)
        let kept = Set(devices.map(\.id))
        forEachShard { shard in
            for id in removedIDs where !kept.contains(id) { shard.removed.insert(id) }
        }
        for device in devices {
            let session = DeviceSession(device: device, settings: settings, now: clock.now()) { 0 }
            if let due = session.nextDueTime { markDue(device.id, at: due) }
        }
    }
}
