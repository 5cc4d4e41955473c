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
            forgetHeldChanges(in: &shard)
            shard.removed = []
        }
        return changes
    }

    /// Whether a device's held pushes changed since the store last took it (a push stored for an
    /// offline phone, held over budget, or let go): a few plain loads, asked at every batch.
    public var hasUnsavedHeldPushes: Bool { heldChangeCount.load(ordering: .relaxed) > 0 }

    /// The devices whose held pushes changed, and forgets them as changed; other changed devices
    /// wait for `takeChanges`. A store saves these with the batch that commits the pushes'
    /// takings, so that a push its phone took and holds is never lost to a crash.
    public func takeHeldPushChanges() -> Changes {
        var changes = Changes(changed: [], removed: [])
        guard hasUnsavedHeldPushes else { return changes }
        forEachShard(settling: false) { shard in
            for id in shard.heldChanged {
                shard.changed.remove(id)
                if let device = shard.devices[id] { changes.changed.append(device) }
            }
            forgetHeldChanges(in: &shard)
        }
        return changes
    }

    func forgetHeldChanges(in shard: inout Shard) {
        guard !shard.heldChanged.isEmpty else { return }
        heldChangeCount.subtract(shard.heldChanged.count, ordering: .relaxed)
        shard.heldChanged = []
    }

    /// Devices changed or removed that `takeChanges` has not handed out yet.
    public var unsavedChangeCount: Int {
        var count = 0
        forEachShard(settling: false) { count += $0.changed.count + $0.removed.count }
        return count
    }

    /// Forgets which devices changed and which went, without handing them out: a scenario's
    /// own devices, which a store keeps no copy of (its rows are the changes since).
    public func discardChanges() {
        forEachShard(settling: false) { shard in
            shard.changed = []
            forgetHeldChanges(in: &shard)
            shard.removed = []
        }
    }

    /// Replaces every device with `devices` (a store's saved state, a scenario reset). Tokens are
    /// registered in the world; what was due while the server was down happens at the next tick.
    /// The new devices count as changed and the old ones as removed, for the store.
    public func replaceAll(with devices: [SimulatedDevice], progress: LoadProgress? = nil) throws(SimulatorError) {
        var removedTokens: [(token: String, deviceID: String)] = []
        var removedIDs: [String] = []
        forEachShard { shard in
            for device in shard.devices.values {
                removedTokens += device.tokenRecords.map { ($0.token, device.id) }
                removedIDs.append(device.id)
            }
            let pendingRemovals = shard.removed
            forgetHeldChanges(in: &shard)
            shard = Shard()
            shard.removed = pendingRemovals
        }
        forgetTokens(removedTokens)
        try addDevices(devices, progress: progress)
        guard !removedIDs.isEmpty else { return }
        let kept = Set(devices.map(\.id))
        forEachShard { shard in
            for id in removedIDs where !kept.contains(id) { shard.removed.insert(id) }
        }
    }

    /// Puts back what a store saved on top of the devices there are (a scenario's): each of
    /// `saved` replaces the device with its id or joins them, each of `removed` goes, and their
    /// tokens are registered as `replaceAll` does. None of it counts as a change: the store has it.
    public func restore(_ saved: [SimulatedDevice], removing removed: [String], progress: LoadProgress? = nil) throws(SimulatorError) {
        let touched = Set(saved.map(\.id)).union(removed)
        var replacedTokens: [(token: String, deviceID: String)] = []
        for id in touched {
            guard let device = try? delete(id, markingRemoved: false) else { continue }
            replacedTokens += device.tokenRecords.map { ($0.token, id) }
        }
        forgetTokens(replacedTokens)
        try addDevices(saved, progress: progress)
        forEachShard(settling: false) { shard in
            shard.changed.subtract(touched)
            let held = shard.heldChanged.count
            shard.heldChanged.subtract(touched)
            heldChangeCount.subtract(held - shard.heldChanged.count, ordering: .relaxed)
            shard.removed.subtract(touched)
        }
    }

    /// Only tokens the world still ties to the device: a reset world may have reused one.
    private func forgetTokens(_ tokens: [(token: String, deviceID: String)]) {
        for (token, deviceID) in tokens where world.token(token)?.deviceID == deviceID { world.forget(token: token) }
    }
}
