import PushlabSimulator

extension PushlabStore {
    /// Puts the saved devices into the simulator, replacing the ones it has (their tokens are
    /// registered in its world; what fell due while Pushlab was down happens at the next tick).
    /// Observation numbering goes on after the saved ones once the store is connected.
    ///
    /// Requests are not reloaded: the live `RequestLog` starts empty in every run, and saved
    /// requests are read with `requests(deviceToken:status:reason:limit:)`.
    @discardableResult
    public func load() throws(StoreError) -> [SimulatedDevice] {
        let saved = try StoreDatabase.read(database, path: path) { db in try DeviceRows.all(in: db) }
        do {
            try devices.replaceAll(with: saved)
        } catch {
            throw StoreError(.unreadable, "Cannot load the devices saved in \(path): \(error)")
        }
        // They came from the store: nothing to write back.
        _ = devices.takeChanges()
        return saved
    }

    /// The scenario the saved devices were seeded from (a fingerprint of its file), if any.
    public func seededScenario() throws(StoreError) -> String? {
        try StoreDatabase.read(database, path: path) { db in try MetaRows.value(of: MetaRows.seededScenario, in: db) }
    }

    /// Starts the saved world over from a scenario: every saved device row goes, the simulator's
    /// current devices are written, and `fingerprint` is remembered, in one transaction (a crash
    /// right after start must not leave a store that claims the scenario and holds no devices).
    /// Observations and requests stay: they are history.
    public func reseed(fromScenario fingerprint: String) throws(StoreError) {
        var writes = PendingWrites()
        writes.add(devices.takeChanges())
        do {
            try database.write { db in
                try db.execute(sql: "DELETE FROM devices")
                try NotificationCenterRows.removeAll(in: db)
                var contents = ContentIDs()
                try DeviceRows.write(writes.devices, into: db, contents: &contents)
                try MetaRows.set(MetaRows.seededScenario, to: fingerprint, in: db)
            }
        } catch {
            throw .cannotWrite(path, error)
        }
    }
}
