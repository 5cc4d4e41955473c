import PushlabCore
import GRDB

/// The filters of `PushlabStore.requests(...)`, as SQL for saved rows and as a test for
/// buffered ones.
struct RequestQuery {
    let deviceToken: String?
    var status: Int?
    /// APNs's reason text, e.g. `BadDeviceToken`.
    var reason: String?
    var limit: Int
    /// `deviceToken` packed once, not for every entry compared.
    private let tokenKey: DeviceTokenKey?

    init(deviceToken: String?, status: Int?, reason: String?, limit: Int) {
        self.deviceToken = deviceToken
        self.status = status
        self.reason = reason
        self.limit = limit
        tokenKey = deviceToken.map(DeviceTokenKey.init)
    }

    func matches(_ request: RequestLog.Entry) -> Bool {
        (tokenKey == nil || request.deviceTokenKey == tokenKey)
            && (status == nil || request.status == status)
            && (reason == nil || request.reason?.rawValue == reason)
    }

    /// The saved rows that match, newest first. One token's are found through the batch index.
    func fetch(in db: Database) throws -> [RequestLog.Entry] {
        guard let deviceToken else {
            let (sql, arguments) = scanStatement
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(RequestRows.request)
        }
        return try BatchIndexRows.rows(
            try BatchIndexRows.requestSequences(deviceToken: deviceToken, in: db),
            from: "requests", columns: RequestRows.columns, limit: limit, in: db,
            decode: RequestRows.request, where: matches
        )
    }

    /// All tokens: the table newest first.
    private var scanStatement: (sql: String, arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let status {
            conditions.append("status = ?")
            arguments += [status]
        }
        if let reason {
            conditions.append("reason = ?")
            arguments += [reason]
        }
        arguments += [Int64(limit)]
        let filter = conditions.isEmpty ? "" : "WHERE \(conditions.joined(separator: " AND ")) "
        return ("SELECT \(RequestRows.columns) FROM requests \(filter)ORDER BY sequence DESC LIMIT ?", arguments)
    }
}
