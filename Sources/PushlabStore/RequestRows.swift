import Foundation
import GRDB
import PushlabCore
import PushlabSimulator

/// How APNs requests are written to and read back from the `requestChunks` table: each batch's
/// requests as `RequestChunk` blobs of up to `RequestChunk.maximumCount`, numbered by the batch
/// that indexed them.
enum RequestRows {
    static func insert(_ requests: BatchItems<RequestLog.Entry>, batch: Int64, into db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO requestChunks (batch, firstSequence, lastSequence, records) VALUES (?, ?, ?, ?)")
        var start = requests.startIndex
        while start < requests.endIndex {
            let end = min(start + RequestChunk.maximumCount, requests.endIndex)
            var row = RowInserter(statement, in: db)
            row.bind(batch)
            var first = Int64.max, last = Int64.min
            requests.forEach(in: start..<end) { request in
                first = min(first, request.pointee.sequence)
                last = max(last, request.pointee.sequence)
            }
            row.bind(first)
            row.bind(last)
            row.bind(blob: RequestChunk.encode(requests, in: start..<end))
            try row.step()
            start = end
        }
    }

    static func maximumSequence(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(lastSequence) FROM requestChunks") ?? 0
    }

    /// The chunks of `batch` whose range covers `sequence` (usually one: a late request can make
    /// two of a batch overlap), by row id, still encoded.
    static func chunks(covering sequence: Int64, inBatch batch: Int64, in db: Database) throws -> [(id: Int64, records: Data)] {
        let statement = try db.cachedStatement(sql: "SELECT id, records FROM requestChunks WHERE batch = ? AND firstSequence <= ? AND lastSequence >= ?")
        return try Row.fetchAll(statement, arguments: [batch, sequence, sequence]).map { ($0[0], $0[1]) }
    }

    /// Chunks newest first: by their highest sequence, so a scan for the newest N can stop at the
    /// first chunk whose highest sequence is below all N found.
    static func newestChunksFirst(in db: Database) throws -> RowCursor {
        try Row.fetchCursor(db, sql: "SELECT lastSequence, records FROM requestChunks ORDER BY lastSequence DESC")
    }

    static func decode(_ blob: Data) throws(StoreError) -> [RequestLog.Entry] {
        try blob.decodedChunk("a chunk of saved requests", RequestChunk.decode)
    }

    /// Moves the rows an older Pushlab wrote one per request into chunks (run once, by migration
    /// 5). Their index entries are rebuilt with them, in new batches: a token's requests are
    /// found by batch, and the old batches' request ranges no longer say where rows are.
    static func chunksFromRequestRows(in db: Database) throws {
        try db.execute(sql: "DELETE FROM requestBuckets")
        try db.execute(sql: "UPDATE batches SET firstRequest = NULL, lastRequest = NULL")
        let rows = try Row.fetchCursor(db, sql: "SELECT sequence, time, connectionId, environment, deviceToken, topic, pushType, status, reason, apnsId FROM requests ORDER BY sequence")
        var group: [RequestLog.Entry] = []
        func flush() throws {
            guard let batch = try BatchIndexRows.insert(observations: BatchItems([]), requests: BatchItems([group]), into: db) else { return }
            try insert(BatchItems([group]), batch: batch, into: db)
            group.removeAll(keepingCapacity: true)
        }
        while let row = try rows.next() {
            group.append(try request(fromRowBeforeChunks: row))
            if group.count == RequestChunk.maximumCount { try flush() }
        }
        try flush()
    }

    private static func request(fromRowBeforeChunks row: Row) throws -> RequestLog.Entry {
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
