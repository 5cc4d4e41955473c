import GRDB
import PushlabSimulator

/// The filters of `PushlabStore.observations(...)`, as SQL for saved rows and as a test for
/// buffered ones, so both answer the same question.
struct ObservationQuery {
    var deviceID: String?
    var since: Int64
    var bundleID: String?
    var kind: ObservationKind?
    var limit: Int

    func matches(_ observation: Observation) -> Bool {
        observation.sequence > since
            && (deviceID == nil || observation.deviceID == deviceID)
            && (bundleID == nil || observation.bundleID == bundleID)
            && (kind == nil || observation.kind == kind)
    }

    func matches(_ stored: StoredObservation) -> Bool {
        stored.sequence > since
            && (deviceID == nil || stored.deviceID == deviceID)
            && (bundleID == nil || stored.bundleID == bundleID)
            && (kind == nil || stored.kind == kind)
    }

    /// The saved observations that match, oldest first. One device's are found through the
    /// batch index; all devices' by reading chunks in sequence order.
    func fetch(in db: Database) throws -> [Observation] {
        guard let deviceID else { return try ObservationRows.scan(after: since, limit: limit, in: db, where: matches) }
        let sequences = try BatchIndexRows.observationSequences(deviceID: deviceID, after: since, in: db)
        return try ObservationRows.observations(at: sequences, limit: limit, in: db, where: matches)
    }
}
