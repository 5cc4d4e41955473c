import Foundation
import GRDB
import PushlabCore
import PushlabSimulator

/// How observations are written to and read back from the `observationChunks` table: each
/// batch's observations, in sequence order, as `ObservationChunk` blobs of up to
/// `ObservationChunk.maximumCount`, numbered by the batch that indexed them.
enum ObservationRows {
    /// `sorted`: the batch's observations in sequence order (`BatchItems(_:orderedBy:)`).
    static func insert(_ sorted: BatchItems<Observation>, batch: Int64, contents: inout ContentTexts, into db: Database) throws {
        guard !sorted.isEmpty else { return }
        let statement = try db.cachedStatement(
            sql: "INSERT INTO observationChunks (batch, firstSequence, lastSequence, count, records) VALUES (?, ?, ?, ?, ?)"
        )
        var start = sorted.startIndex
        while start < sorted.endIndex {
            let end = min(start + ObservationChunk.maximumCount, sorted.endIndex)
            var row = RowInserter(statement, in: db)
            row.bind(batch)
            row.bind(sorted[start].sequence)
            row.bind(sorted[end - 1].sequence)
            row.bind(end - start)
            row.bind(blob: ObservationChunk.encode(sorted, in: start..<end, contents: &contents))
            try row.step()
            start = end
        }
    }

    static func maximumSequence(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(lastSequence) FROM observationChunks") ?? 0
    }

    static func decode(_ blob: Data) throws(StoreError) -> [StoredObservation] {
        try blob.decodedChunk("a chunk of saved observations", ObservationChunk.decode)
    }

    /// The observations at `sequences` (ascending) that `include` keeps, in that order; at most
    /// `limit`. Each chunk they fall in is decoded once.
    static func observations(
        at sequences: [Int64], limit: Int, in db: Database, where include: (StoredObservation) -> Bool
    ) throws -> [Observation] {
        let covering = try db.cachedStatement(sql: "SELECT id FROM observationChunks WHERE lastSequence >= ? AND firstSequence <= ?")
        let records = try db.cachedStatement(sql: "SELECT records FROM observationChunks WHERE id = ?")
        var decoded: [Int64: [Int64: StoredObservation]] = [:]
        var found: [Observation] = []
        for sequence in sequences {
            var match: StoredObservation?
            for id in try Int64.fetchAll(covering, arguments: [sequence, sequence]) {
                if decoded[id] == nil, let blob = try Data.fetchOne(records, arguments: [id]) {
                    decoded[id] = Dictionary(try decode(blob).map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
                }
                if let stored = decoded[id]?[sequence] { match = stored; break }
            }
            guard let match, include(match) else { continue }
            found.append(try match.observation())
            if found.count == limit { break }
        }
        return found
    }

    /// Every device's observations after `since` that `include` keeps, oldest first; at most
    /// `limit`. Chunks are read in order of their last sequence; one that a late observation
    /// put out of order is still found, by a second look for chunks reaching below the answer.
    static func scan(after since: Int64, limit: Int, in db: Database, where include: (StoredObservation) -> Bool) throws -> [Observation] {
        var kept: [StoredObservation] = []
        var lastScanned = since
        let chunks = try Row.fetchCursor(db, sql: "SELECT lastSequence, records FROM observationChunks WHERE lastSequence > ? ORDER BY lastSequence", arguments: [since])
        while let row = try chunks.next() {
            lastScanned = row[0]
            kept += try decode(row[1]).filter { $0.sequence > since && include($0) }
            if kept.count >= limit { break }
        }
        kept.sort { $0.sequence < $1.sequence }
        if kept.count >= limit {
            let bound = kept[limit - 1].sequence
            let late = try Row.fetchAll(
                db, sql: "SELECT records FROM observationChunks WHERE lastSequence > ? AND firstSequence <= ?", arguments: [lastScanned, bound]
            )
            for row in late { kept += try decode(row[0]).filter { $0.sequence > since && $0.sequence <= bound && include($0) } }
            kept.sort { $0.sequence < $1.sequence }
        }
        return try kept.prefix(limit).map { stored throws(StoreError) in try stored.observation() }
    }

    /// Moves the rows an older Pushlab wrote one per observation into chunks (run once, by
    /// migration 6), re-indexed in new batches as migration 5 did for requests.
    static func chunksFromObservationRows(in db: Database) throws {
        try db.execute(sql: "DELETE FROM observationBuckets")
        try db.execute(sql: "UPDATE batches SET firstObservation = NULL, lastObservation = NULL")
        let rows = try Row.fetchCursor(db, sql: "SELECT sequence, time, deviceId, bundleId, notificationId, kind, details FROM observations ORDER BY sequence")
        var contents = ContentTexts()
        var group: [Observation] = []
        func flush() throws {
            let items = BatchItems([group])
            guard let batch = try BatchIndexRows.insert(observations: items, requests: BatchItems([]), into: db) else { return }
            try insert(items, batch: batch, contents: &contents, into: db)
            group.removeAll(keepingCapacity: true)
        }
        while let row = try rows.next() {
            group.append(try observation(fromRowBeforeChunks: row))
            if group.count == ObservationChunk.maximumCount { try flush() }
        }
        try flush()
    }

    private static func observation(fromRowBeforeChunks row: Row) throws -> Observation {
        let sequence: Int64 = try row.decode(forColumn: "sequence")
        let kindText: String = try row.decode(forColumn: "kind")
        let detailsText: String = try row.decode(forColumn: "details")
        guard let kind = ObservationKind(rawValue: kindText) else {
            throw StoreError(.unreadable, "observation \(sequence) has an unknown kind \(kindText)")
        }
        let stored = StoredObservation(
            sequence: sequence, time: try row.decode(forColumn: "time"), deviceID: try row.decode(forColumn: "deviceId"),
            bundleID: try row.decode(forColumn: "bundleId"), notificationID: try row.decode(forColumn: "notificationId"), kind: kind,
            details: .json(detailsText)
        )
        return try stored.observation()
    }
}
