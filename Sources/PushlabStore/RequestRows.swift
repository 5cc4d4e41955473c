import GRDB
import PushlabCore

/// How APNs requests are written to and read back from the `requests` table.
enum RequestRows {
    static let columns = "sequence, time, connectionId, environment, deviceToken, topic, pushType, status, reason, apnsId"

    static func insert(_ requests: [RequestLog.Entry], into db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO requests (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        var row = RowInserter(statement, in: db)
        for request in requests {
            row.bind(request.sequence)
            row.bind(request.time)
            // SQLite integers are signed; connection ids are small counters, the bit pattern round-trips.
            row.bind(Int64(bitPattern: request.connectionID))
            row.bind(request.environment.rawValue)
            row.bind(request.deviceToken)
            row.bind(request.topic)
            row.bind(request.pushType)
            row.bind(request.status)
            row.bind(request.reason?.rawValue)
            row.bind(request.apnsID)
            try row.step()
        }
    }

    static func maximumSequence(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM requests") ?? 0
    }

    static func request(from row: Row) throws -> RequestLog.Entry {
        let sequence: Int64 = try row.decode(forColumn: "sequence")
        let environmentText: String = try row.decode(forColumn: "environment")
        guard let environment = APNsEnvironment(rawValue: environmentText) else {
            throw StoreError(.unreadable, "request \(sequence) has an unknown environment \(environmentText)")
        }
        let reasonText: String? = try row.decode(forColumn: "reason")
        var reason: APNsErrorReason?
        if let reasonText {
            guard let known = APNsErrorReason(rawValue: reasonText) else {
                throw StoreError(.unreadable, "request \(sequence) has an unknown reason \(reasonText)")
            }
            reason = known
        }
        let connectionID: Int64 = try row.decode(forColumn: "connectionId")
        return RequestLog.Entry(
            sequence: sequence, time: try row.decode(forColumn: "time"), connectionID: UInt64(bitPattern: connectionID),
            environment: environment, deviceToken: try row.decode(forColumn: "deviceToken"), topic: try row.decode(forColumn: "topic"),
            pushType: try row.decode(forColumn: "pushType"), status: try row.decode(forColumn: "status"), reason: reason,
            apnsID: try row.decode(forColumn: "apnsId")
        )
    }
}
