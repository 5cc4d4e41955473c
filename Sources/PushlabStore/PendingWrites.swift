import PushlabSimulator

/// What waits to be written: observations and requests as recorded, and each changed
/// device's newest state.
struct PendingWrites: Sendable {
    var observations: [Observation] = []
    var requests: [StoredRequest] = []
    var devices: [String: DeviceChange] = [:]

    var count: Int { observations.count + requests.count + devices.count }
    var isEmpty: Bool { observations.isEmpty && requests.isEmpty && devices.isEmpty }

    mutating func add(_ changes: DeviceSimulator.Changes) {
        for device in changes.changed { devices[device.id] = .saved(device) }
        for id in changes.removed { devices[id] = .removed }
    }

    /// Puts a batch that failed back in front: its items are older than anything recorded
    /// since, but a device's state taken since is newer than the batch's.
    mutating func putBack(_ older: PendingWrites) {
        observations = older.observations + observations
        requests = older.requests + requests
        devices.merge(older.devices) { newer, _ in newer }
    }
}
