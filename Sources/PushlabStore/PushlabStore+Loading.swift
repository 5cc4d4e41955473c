import PushlabSimulator

extension PushlabStore {
    /// Puts the saved devices into the simulator, on top of the devices of the scenario the
    /// store was seeded from (which the simulator holds): each device changed since replaces its
    /// scenario self (or joins), each removed one goes, and Notification Center entries come back
    /// to their apps. Tokens are registered in the simulator's world; what fell due while
    /// Pushlab was down happens at the next tick. Observation numbering goes on after the saved
    /// ones once the store is connected. Nothing is left to write. Returns the devices the store
    /// changed.
    ///
    /// Requests are not reloaded: the live `RequestLog` starts empty in every run, and saved
    /// requests are read with `requests(deviceToken:status:reason:limit:)`.
    @discardableResult
    public func load(progress: LoadProgress? = nil) throws(StoreError) -> [SimulatedDevice] {
        let (rows, entries, rowsAreChanges) = try StoreDatabase.read(database, path: path) { db in
            (
                try DeviceRows.all(in: db, progress: progress), try NotificationLogReplay.all(in: db),
                try MetaRows.value(of: MetaRows.deviceRows, in: db) == MetaRows.changesSinceScenario
            )
        }
        var saved = rows.saved
        var savedIDs = Set<String>()
        for index in saved.indices {
            savedIDs.insert(saved[index].id)
            let byApp = entries[saved[index].id] ?? [:]
            for app in saved[index].apps.indices { saved[index].apps[app].notificationCenter = byApp[saved[index].apps[app].bundleID] ?? [] }
        }
        do {
            if rowsAreChanges {
                // Entries committed with a batch after the device's last snapshot (device
                // snapshots are seconds apart): they belong to the scenario's device as it is.
                let removed = Set(rows.removed)
                for (id, byApp) in entries where !savedIDs.contains(id) && !removed.contains(id) {
                    guard var device = devices.device(id) else { continue }
                    for app in device.apps.indices { device.apps[app].notificationCenter = byApp[device.apps[app].bundleID] ?? [] }
                    saved.append(device)
                }
                try devices.restore(saved, removing: rows.removed, progress: progress)
            } else {
                try devices.replaceAll(with: saved, progress: progress)
            }
            // The simulator is now what the store holds: the scenario's devices and the saved.
            devices.discardChanges()
        } catch {
            throw StoreError(.unreadable, "Cannot load the devices saved in \(path): \(error)")
        }
        return saved
    }

    /// The scenario the saved devices were seeded from (a fingerprint of its file), if any.
    public func seededScenario() throws(StoreError) -> String? {
        try StoreDatabase.read(database, path: path) { db in try MetaRows.value(of: MetaRows.seededScenario, in: db) }
    }

    /// Starts the saved world over from a scenario whose devices the simulator holds now: every
    /// saved device row goes and `fingerprint` is remembered, in one transaction. The scenario's
    /// devices are not written (the rows are the changes since; `load()` puts them on top), so
    /// seeding a million generated devices writes nothing. Observations and requests stay:
    /// they are history.
    public func reseed(fromScenario fingerprint: String) throws(StoreError) {
        devices.discardChanges()
        do {
            try database.write { db in
                try db.execute(sql: "DELETE FROM devices")
                try NotificationLog.removeAll(in: db)
                try AcceptedPushRows.discardAll(in: db)
                try MetaRows.set(MetaRows.seededScenario, to: fingerprint, in: db)
                try MetaRows.set(MetaRows.deviceRows, to: MetaRows.changesSinceScenario, in: db)
            }
            writer.notificationLogChanged()
        } catch {
            throw .cannotWrite(path, error)
        }
    }
}
