import GRDB
import PushlabCore
import PushlabSimulator

/// Finds one device's observations and one device token's requests without an index keyed by
/// device, whose random inserts made the writer slow down as the file grew. Every committed
/// batch gets a number (`batches`) and one index row per device (and per token) it touched,
/// listing that device's sequences in the batch: rows that only ever go at the end of the index.
enum BatchIndexRows {
    /// Numbers the batch and indexes its observations by device and its requests by token.
    static func insert(observations: some Sequence<Observation>, requests: [RequestLog.Entry], into db: Database) throws {
        var byDevice: [String: [Int64]] = [:]
        var observationRange = SequenceRange()
        for observation in observations {
            byDevice[observation.deviceID, default: []].append(observation.sequence)
            observationRange.add(observation.sequence)
        }
        var byToken: [String: [Int64]] = [:]
        var requestRange = SequenceRange()
        for request in requests {
            requestRange.add(request.sequence)
            if let token = request.deviceToken { byToken[token, default: []].append(request.sequence) }
        }
        guard !observationRange.isEmpty || !requestRange.isEmpty else { return }
        try db.execute(
            sql: "INSERT INTO batches (firstObservation, lastObservation, firstRequest, lastRequest) VALUES (?, ?, ?, ?)",
            arguments: [observationRange.first, observationRange.last, requestRange.first, requestRange.last]
        )
        let batch = db.lastInsertedRowID
        try insert(byDevice, batch: batch, into: "observationIndex", keyColumn: "deviceId", db: db)
        try insert(byToken, batch: batch, into: "requestIndex", keyColumn: "deviceToken", db: db)
    }

    /// Sorted by key, so the rows of one batch go into the index in its order.
    private static func insert(_ sequences: [String: [Int64]], batch: Int64, into table: String, keyColumn: String, db: Database) throws {
        guard !sequences.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "INSERT INTO \(table) (batch, \(keyColumn), sequences) VALUES (?, ?, ?)")
        var row = RowInserter(statement, in: db)
        for key in sequences.keys.sorted() {
            row.bind(batch)
            row.bind(key)
            row.bind(text(sequences[key] ?? []))
            try row.step()
        }
    }

    /// The sequences of one device's observations after `since`, ascending.
    static func observationSequences(deviceID: String, after since: Int64, in db: Database) throws -> [Int64] {
        try sequences(sql: observationLookup, arguments: [deviceID, since], in: db).filter { $0 > since }.sorted()
    }

    /// The sequences of one device token's requests, newest first.
    static func requestSequences(deviceToken: String, in db: Database) throws -> [Int64] {
        try sequences(sql: requestLookup, arguments: [deviceToken], in: db).sorted(by: >)
    }

    /// Batches outside, each probed by its primary key: the index is never scanned.
    static let observationLookup = """
        SELECT i.sequences FROM batches b CROSS JOIN observationIndex i ON i.batch = b.batch AND i.deviceId = ?
        WHERE b.lastObservation > ?
        """
    static let requestLookup = "SELECT i.sequences FROM batches b CROSS JOIN requestIndex i ON i.batch = b.batch AND i.deviceToken = ?"

    private static func sequences(sql: String, arguments: StatementArguments, in db: Database) throws -> Set<Int64> {
        var result = Set<Int64>()
        for text in try String.fetchAll(db, sql: sql, arguments: arguments) {
            for part in text.split(separator: ",") {
                guard let sequence = Int64(part) else {
                    throw StoreError(.unreadable, "the store's device index holds \(text), not a list of sequence numbers")
                }
                result.insert(sequence)
            }
        }
        return result
    }

    private static func text(_ sequences: [Int64]) -> String {
        var text = ""
        text.reserveCapacity(sequences.count * 8)
        for (index, sequence) in sequences.enumerated() {
            if index > 0 { text.append(",") }
            text.append(String(sequence))
        }
        return text
    }
}

/// The lowest and highest sequence seen, if any.
private struct SequenceRange {
    var first: Int64?
    var last: Int64?

    var isEmpty: Bool { first == nil }

    mutating func add(_ sequence: Int64) {
        first = min(first ?? sequence, sequence)
        last = max(last ?? sequence, sequence)
    }
}
