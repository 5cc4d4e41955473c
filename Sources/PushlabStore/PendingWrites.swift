import PushlabCore
import PushlabSimulator

/// What waits to be written: observations and requests as recorded, and each changed
/// device's newest state.
struct PendingWrites: Sendable {
    /// As the simulator handed them over, one array per call: recording keeps a reference to
    /// the caller's array instead of copying each observation on the event loop.
    private(set) var observationChunks: [[Observation]] = []
    private(set) var observationCount = 0
    var requests: [RequestLog.Entry] = []
    var devices: [String: DeviceChange] = [:]

    var observations: FlattenSequence<[[Observation]]> { observationChunks.joined() }
    var count: Int { observationCount + requests.count + devices.count }
    var isEmpty: Bool { observationCount == 0 && requests.isEmpty && devices.isEmpty }

    mutating func append(_ observations: [Observation]) {
        observationChunks.append(observations)
        observationCount += observations.count
    }

    mutating func dropObservations() {
        observationChunks = []
        observationCount = 0
    }

    mutating func add(_ changes: DeviceSimulator.Changes) {
        for device in changes.changed { devices[device.id] = .saved(device) }
        for id in changes.removed { devices[id] = .removed }
    }

    /// Puts a batch that failed back in front: its items are older than anything recorded
    /// since, but a device's state taken since is newer than the batch's.
    mutating func putBack(_ older: PendingWrites) {
        observationChunks = older.observationChunks + observationChunks
        observationCount += older.observationCount
        requests = older.requests + requests
        devices.merge(older.devices) { newer, _ in newer }
    }
}
