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

    var statement: (sql: String, arguments: StatementArguments) {
        var conditions = ["sequence > ?"]
        var arguments: StatementArguments = [since]
        if let deviceID {
            conditions.append("deviceId = ?")
            arguments += [deviceID]
        }
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
