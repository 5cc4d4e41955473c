import PushlabCore

/// What a store needs: the devices changed since it last asked, and a way to load them back.
extension DeviceSimulator {
    public struct Changes: Sendable {
        public var changed: [SimulatedDevice]
        public var removed: [String]
        public var isEmpty: Bool { changed.isEmpty && removed.isEmpty }
    }

    /// Devices changed or removed since the last call, and forgets them.
    public func takeChanges() -> Changes {
        var changes = Changes(changed: [], removed: [])
        forEachShard { shard in
            for id in shard.changed { if let device = shard.devices[id] { changes.changed.append(device) } }
            changes.removed += shard.removed
            shard.changed = []
            shard.removed = []
        }
        return changes
    }

    /// Replaces every device with `devices` (a store's saved state, a scenario reset). Tokens are
    /// registered in the world; what was due while the server was down happens at the next tick.
    public func replaceAll(with devices: [SimulatedDevice]) throws(SimulatorError) {
        var removedTokens: [String] = []
        forEachShard { shard in
            for device in shard.devices.values { removedTokens += device.apps.map(\.deviceToken) }
            shard = Shard()
        }
        for token in removedTokens { world.forget(token: token) }
        try addDevices(devices)
        for device in devices {
            let session = DeviceSession(device: device, settings: settings, now: clock.now()) { 0 }
            if let due = session.nextDueTime { markDue(device.id, at: due) }
        }
        _ = takeChanges()
    }
}
