import GRDB
import PushlabCore
import PushlabSimulator

/// How observations are written to and read back from the `observations` table.
enum ObservationRows {
    static let columns = "sequence, time, deviceId, bundleId, notificationId, kind, details"

    /// The sequence is an observation's identity: a second copy (two stores fed by one simulator
    /// writing one file) is skipped rather than failing the whole batch.
    static func insert(_ observations: some Sequence<Observation>, into db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO observations (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)")
        var row = RowInserter(statement, in: db)
        for observation in observations {
            row.bind(observation.sequence)
            row.bind(observation.time)
            row.bind(observation.deviceID)
            row.bind(observation.bundleID)
            row.bind(observation.notificationID)
            row.bind(observation.kind.rawValue)
            row.bind(observation.event.detailsText)
            try row.step()
        }
    }

    static func maximumSequence(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM observations") ?? 0
    }

    /// Rebuilds an observation; a row whose kind or details do not parse is reported, not skipped.
    static func observation(from row: Row) throws -> Observation {
        let sequence: Int64 = try row.decode(forColumn: "sequence")
        let kindText: String = try row.decode(forColumn: "kind")
        let detailsText: String = try row.decode(forColumn: "details")
        guard let kind = ObservationKind(rawValue: kindText) else {
            throw StoreError(.unreadable, "observation \(sequence) has an unknown kind \(kindText)")
        }
        let details: JSONValue
        do {
            details = try JSONParser.parse(detailsText)
        } catch {
            throw StoreError(.unreadable, "observation \(sequence) has details that are not JSON (\(error)): \(detailsText)")
        }
        guard let event = ObservationEvent(kind: kind, details: details) else {
            throw StoreError(.unreadable, "observation \(sequence) has details that do not fit kind \(kindText): \(detailsText)")
        }
        return Observation(
            sequence: sequence, time: try row.decode(forColumn: "time"), deviceID: try row.decode(forColumn: "deviceId"),
            bundleID: try row.decode(forColumn: "bundleId"), notificationID: try row.decode(forColumn: "notificationId"),
            event: event
        )
    }
}
