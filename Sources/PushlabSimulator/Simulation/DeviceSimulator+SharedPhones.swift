import PushlabCore

/// A cluster node's scenario phones: those of the partitions it does not simulate, made when
/// it gains them (`DeviceSimulator.adopt`).
struct SharedPhones: Sendable {
    /// The listed phones as the install made them (tokens given, running apps launched): the
    /// same on every node.
    var listed: [String: SimulatedDevice]
    var generated: [GeneratedPhones]
}

/// On a cluster node, every phone's tokens are in the world, but only the phones of the
/// partitions the node simulates are made: a hundred million phones on sixteen machines need
/// each to hold its share. A phone is made when its node gains its partition, from the scenario
/// and from what its last node wrote of it, and let go when the node loses it.
extension DeviceSimulator {
    /// Whether this simulator is a cluster node's (`setSimulatedHere`).
    public var isClusterNode: Bool { simulatedHere.withLock { $0 != nil } }

    /// On a cluster node, how many phones the installed scenario has on all the nodes.
    public var scenarioPhoneCount: Int? {
        sharedPhones.withLock { $0.map { shared in shared.listed.count + shared.generated.reduce(0) { $0 + $1.count } } }
    }

    /// Replaces every phone with the scenario's `phones`, as a cluster node does: all their tokens
    /// join the world, made alike on every node (the scenario's tokens start again from the
    /// seed), and only the phones simulated here are made. Those count as unchanged: any node
    /// can make them again. The world must hold no phone's tokens yet (`Scenario.install`
    /// replaces it first): the phones not made here are not known to forget theirs.
    public func replaceAll(sharing phones: ScenarioPhones, progress: LoadProgress? = nil) throws(SimulatorError) {
        forEachShard { shard in
            forgetHeldChanges(in: &shard)
            shard = Shard()
        }
        sharedPhones.withLock { $0 = nil }
        restartScenarioTokens()
        let made = Self.$makingScenarioTokens.withValue(true) { () -> Result<(here: [SimulatedDevice], listed: [String: SimulatedDevice], launches: CreationLaunches), SimulatorError> in
            do throws(SimulatorError) {
                return .success(try makeListed(phones.listed, total: phones.count, progress: progress))
            } catch {
                return .failure(error)
            }
        }
        let (madeHere, listed, launches) = try made.get()
        var here = madeHere
        var done = listed.count
        for entry in phones.generated {
            var records: [DeviceTokenRecord] = []
            records.reserveCapacity(entry.count)
            // Only checked against the world: a set of every generated token seen would cost a
            // node as much as the phones it does not make (a generated entry's own are unique).
            for number in 0..<entry.count {
                let device = entry.device(number)
                for record in device.tokenRecords {
                    if let owner = world.token(DeviceTokenKey(record.token))?.deviceID {
                        throw SimulatorError(.conflict, "Device token \(record.token) of device \(device.id) already belongs to device \(owner)")
                    }
                    records.append(record)
                }
                if isSimulatedHere(device.id) { here.append(device) }
                done += 1
                progress?.count(.registeringDevices, done: done, of: phones.count)
            }
            // Registered entry by entry: a later entry's token that repeats one is found.
            world.register(records)
        }
        try insertAll(here)
        forEachShard(settling: false) { shard in
            shard.changed = []
            forgetHeldChanges(in: &shard)
        }
        sharedPhones.withLock { $0 = SharedPhones(listed: listed, generated: phones.generated) }
        publish(launches)
    }

    /// The listed phones made as `addDevices` makes them, every one of them (their tokens and
    /// launches are the same on every node); those simulated here, and the launches of those.
    private func makeListed(
        _ devices: [SimulatedDevice], total: Int, progress: LoadProgress?
    ) throws(SimulatorError) -> (here: [SimulatedDevice], listed: [String: SimulatedDevice], launches: CreationLaunches) {
        var here: [SimulatedDevice] = []
        var listed: [String: SimulatedDevice] = [:]
        var records: [DeviceTokenRecord] = []
        var tokens = Set<DeviceTokenKey>()
        var launches = CreationLaunches()
        for device in devices {
            var ready = try preparedDevice(device)
            let simulated = isSimulatedHere(ready.id)
            if simulated {
                launchRunningApps(&ready, into: &launches)
            } else {
                // Launched alike, for the phone's state; what the launch did is its node's to say.
                var elsewhere = CreationLaunches()
                launchRunningApps(&ready, into: &elsewhere)
            }
            try collectNewTokens(of: ready, seen: &tokens, into: &records)
            listed[ready.id] = ready
            if simulated { here.append(ready) }
            progress?.count(.registeringDevices, done: listed.count, of: total)
        }
        world.register(records)
        return (here, listed, launches)
    }

    /// Makes the phones `include` accepts, for a partition this node now simulates: as the
    /// scenario made them, then each of `saved` (a phone as its last node wrote it) in place of
    /// its own or added, and each of `removed` gone; each phone in `notificationCenters` has its
    /// apps' entries from it (by app, oldest first; an app without any has none). The world is
    /// left as it is: it has every phone's tokens already, as the nodes changed them. Returns
    /// how many phones were made.
    @discardableResult
    public func adopt(
        where include: (String) -> Bool, saved: [SimulatedDevice], removed: [String],
        notificationCenters: [String: [String: [DeliveredNotification]]] = [:]
    ) -> Int {
        var phones: [String: SimulatedDevice] = [:]
        if let shared = sharedPhones.withLock({ $0 }) {
            for (id, device) in shared.listed where include(id) { phones[id] = device }
            for entry in shared.generated {
                for number in 0..<entry.count {
                    let id = entry.id(number)
                    if include(id) { phones[id] = entry.device(number) }
                }
            }
        }
        for device in saved { phones[device.id] = device }
        for id in removed { phones[id] = nil }
        for (id, byApp) in notificationCenters {
            guard var phone = phones[id] else { continue }
            for app in phone.apps.indices { phone.apps[app].notificationCenter = byApp[phone.apps[app].bundleID] ?? [] }
            phones[id] = phone
        }
        place(Array(phones.values))
        return phones.count
    }

    /// Lets go of the phones `include` accepts (a partition another node simulates now), and of
    /// their unwritten changes; the world keeps their tokens. Returns how many there were.
    @discardableResult
    public func release(where include: (String) -> Bool) -> Int {
        var released = 0
        forEachShard(settling: false) { shard in
            let ids = shard.devices.keys.filter(include)
            for id in ids {
                shard.devices[id] = nil
                shard.dueTimes[id] = nil
                shard.changed.remove(id)
                shard.removed.remove(id)
                if shard.heldChanged.remove(id) != nil { heldChangeCount.subtract(1, ordering: .relaxed) }
            }
            released += ids.count
        }
        return released
    }

    /// Puts `devices` in place of any with their ids, unchanged for a store or engine, each due
    /// when it says.
    private func place(_ devices: [SimulatedDevice]) {
        var byShard = [[SimulatedDevice]](repeating: [], count: shards.count)
        for device in devices { byShard[shardIndex(device.id)].append(device) }
        let now = clock.now()
        for (index, devices) in byShard.enumerated() where !devices.isEmpty {
            shards[index].withLock { shard in
                shard.devices.reserveCapacity(shard.devices.count + devices.count)
                for device in devices {
                    shard.devices[device.id] = device
                    shard.dueTimes[device.id] = device.mayHaveDueEvents
                        ? DeviceSession(device: device, settings: settings, now: now, reserveSequences: { _ in 0 }).nextDueTime : nil
                }
            }
        }
    }
}
