import Foundation
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
        var byDevice = Grouping()
        for observation in observations { byDevice.add(observation.sequence, key: observation.deviceID) }
        var byToken = Grouping()
        for request in requests { byToken.add(request.sequence, key: request.deviceToken) }
        guard !byDevice.isEmpty || !byToken.isEmpty else { return }
        try insert(byDevice, byToken, batch: nil, into: db)
    }

    private static func insert(_ byDevice: Grouping, _ byToken: Grouping, batch: Int64?, into db: Database) throws {
        try db.execute(
            sql: "INSERT INTO batches (batch, firstObservation, lastObservation, firstRequest, lastRequest) VALUES (?, ?, ?, ?, ?)",
            arguments: [batch, byDevice.first, byDevice.last, byToken.first, byToken.last]
        )
        let batch = db.lastInsertedRowID
        try insert(byDevice.sequences, batch: batch, into: "observationIndex", keyColumn: "deviceKey", db: db)
        try insert(byToken.sequences, batch: batch, into: "requestIndex", keyColumn: "tokenKey", db: db)
    }

    /// Sorted by key, so the rows of one batch go into the index in its order.
    private static func insert(_ sequences: [Int64: [Int64]], batch: Int64, into table: String, keyColumn: String, db: Database) throws {
        guard !sequences.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "INSERT INTO \(table) (batch, \(keyColumn), sequences) VALUES (?, ?, ?)")
        var row = RowInserter(statement, in: db)
        for key in sequences.keys.sorted() {
            row.bind(batch)
            row.bind(key)
            row.bind(sequences: sequences[key] ?? [])
            try row.step()
        }
    }

    /// The sequences of one device's observations after `since`, ascending. Rows of another
    /// device with the same key come back too; the caller's filter drops them.
    static func observationSequences(deviceID: String, after since: Int64, in db: Database) throws -> [Int64] {
        try sequences(sql: observationLookup, arguments: [key(deviceID), since], in: db).filter { $0 > since }.sorted()
    }

    /// The sequences of one device token's requests, newest first (with the same caveat).
    static func requestSequences(deviceToken: String, in db: Database) throws -> [Int64] {
        try sequences(sql: requestLookup, arguments: [key(deviceToken)], in: db).sorted(by: >)
    }

    /// The rows at `sequences`, in that order, that `include` keeps; at most `limit`. The filter
    /// also drops another device's rows that share the hashed key.
    static func rows<Item>(
        _ sequences: [Int64], from table: String, columns: String, limit: Int, in db: Database,
        decode: (Row) throws -> Item, where include: (Item) -> Bool
    ) throws -> [Item] {
        let bySequence = try db.cachedStatement(sql: "SELECT \(columns) FROM \(table) WHERE sequence = ?")
        var found: [Item] = []
        for sequence in sequences {
            guard let row = try Row.fetchOne(bySequence, arguments: [sequence]) else { continue }
            let item = try decode(row)
            guard include(item) else { continue }
            found.append(item)
            if found.count == limit { break }
        }
        return found
    }

    /// Batches outside, each probed by its primary key: the index is never scanned.
    static let observationLookup = """
        SELECT i.sequences FROM batches b CROSS JOIN observationIndex i ON i.batch = b.batch AND i.deviceKey = ?
        WHERE b.lastObservation > ?
        """
    static let requestLookup = "SELECT i.sequences FROM batches b CROSS JOIN requestIndex i ON i.batch = b.batch AND i.tokenKey = ?"

    private static func sequences(sql: String, arguments: StatementArguments, in db: Database) throws -> Set<Int64> {
        var result = Set<Int64>()
        for blob in try Data.fetchAll(db, sql: sql, arguments: arguments) {
            guard blob.count % 8 == 0 else {
                throw StoreError(.unreadable, "the store's device index holds \(blob.count) bytes, not a list of 8-byte sequence numbers")
            }
            blob.withUnsafeBytes { bytes in
                for offset in stride(from: 0, to: bytes.count, by: 8) {
                    result.insert(Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
                }
            }
        }
        return result
    }

    /// FNV-1a: stable across processes, unlike `Hasher`, and cheap for 64-character tokens.
    static func key(_ text: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Indexes what a Pushlab from before the index wrote, as batch 0 (run once, by migration).
    static func indexRowsFromBeforeTheIndex(in db: Database) throws {
        var byDevice = Grouping()
        let observations = try Row.fetchCursor(db, sql: "SELECT sequence, deviceId FROM observations")
        while let row = try observations.next() { byDevice.add(row[0], key: row[1] as String) }
        var byToken = Grouping()
        let requests = try Row.fetchCursor(db, sql: "SELECT sequence, deviceToken FROM requests")
        while let row = try requests.next() { byToken.add(row[0], key: row[1] as String?) }
        guard !byDevice.isEmpty || !byToken.isEmpty else { return }
        try insert(byDevice, byToken, batch: 0, into: db)
    }
}

/// One batch's sequences by key, and the lowest and highest of them.
private struct Grouping {
    var sequences: [Int64: [Int64]] = [:]
    var first: Int64?
    var last: Int64?

    var isEmpty: Bool { first == nil }

    mutating func add(_ sequence: Int64, key text: String?) {
        first = min(first ?? sequence, sequence)
        last = max(last ?? sequence, sequence)
        guard let text else { return }
        sequences[BatchIndexRows.key(text), default: []].append(sequence)
    }
}
