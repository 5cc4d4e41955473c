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

    /// The saved rows that match, oldest first. One device's are found through the batch index.
    func fetch(in db: Database) throws -> [Observation] {
        guard let deviceID else {
            let (sql, arguments) = scanStatement
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(ObservationRows.observation)
        }
        return try BatchIndexRows.rows(
            try BatchIndexRows.observationSequences(deviceID: deviceID, after: since, in: db),
            from: "observations", columns: ObservationRows.columns, limit: limit, in: db,
            decode: ObservationRows.observation, where: matches
        )
    }

    /// All devices: the table in sequence order.
    private var scanStatement: (sql: String, arguments: StatementArguments) {
        var conditions = ["sequence > ?"]
        var arguments: StatementArguments = [since]
        if let bundleID {
            conditions.append("bundleId = ?")
            arguments += [bundleID]
        }
        if let kind {
            conditions.append("kind = ?")
            arguments += [kind.rawValue]
        }
        arguments += [Int64(limit)]
        let sql = "SELECT \(ObservationRows.columns) FROM observations WHERE \(conditions.joined(separator: " AND ")) ORDER BY sequence LIMIT ?"
        return (sql, arguments)
    }
}
