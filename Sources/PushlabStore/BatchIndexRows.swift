import Foundation
import GRDB
import PushlabCore
import PushlabSimulator

/// Finds one device's observations and one device token's requests without an index keyed by
/// device, whose random inserts made the writer slow down as the file grew. Every committed
/// batch gets a number (`batches`); its sequences are indexed by a 64-bit hash of the device id
/// (or token), in one row per hash bucket it touched: (key, sequence) pairs, sorted. Rows only
/// ever go at the end of the index, and a batch of ten thousand pushes to ten thousand tokens
/// writes 256 rows, not ten thousand.
enum BatchIndexRows {
    /// The top byte of the key picks the bucket.
    static func bucket(_ key: Int64) -> Int64 { Int64(UInt64(bitPattern: key) >> 56) }

    /// Numbers the batch and indexes its observations by device and its requests by token; the
    /// batch's number, or nil when there was nothing to index.
    @discardableResult
    static func insert(
        observations: BatchItems<Observation>, requests: BatchItems<RequestLog.Entry>, into db: Database
    ) throws -> Int64? {
        var byDevice = KeyedSequences()
        byDevice.reserve(observations.count)
        // A push's observations come one after another: its device is hashed once.
        var lastDevice = ""
        var lastKey = key(lastDevice)
        observations.forEach(in: observations.indices) { observation in
            if observation.pointee.deviceID != lastDevice {
                lastDevice = observation.pointee.deviceID
                lastKey = key(lastDevice)
            }
            byDevice.add(observation.pointee.sequence, key: lastKey)
        }
        var byToken = KeyedSequences()
        byToken.reserve(requests.count)
        requests.forEach(in: requests.indices) { request in byToken.add(request.pointee.sequence, key: request.pointee.deviceTokenKey.map(key)) }
        guard !byDevice.isEmpty || !byToken.isEmpty else { return nil }
        return try insert(byDevice, byToken, batch: nil, into: db)
    }

    @discardableResult
    private static func insert(_ byDevice: KeyedSequences, _ byToken: KeyedSequences, batch: Int64?, into db: Database) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO batches (batch, firstObservation, lastObservation, firstRequest, lastRequest) VALUES (?, ?, ?, ?, ?)",
            arguments: [batch, byDevice.first, byDevice.last, byToken.first, byToken.last]
        )
        let batch = db.lastInsertedRowID
        try insert(byDevice, batch: batch, into: "observationBuckets", db: db)
        try insert(byToken, batch: batch, into: "requestBuckets", db: db)
        return batch
    }

    /// One row per bucket, in bucket order, so a batch's rows go into the index in its order.
    /// The pairs are spread over their buckets first and each bucket's few are sorted alone:
    /// sorting the whole batch's pairs at once cost twice as much. A bucket's sorted pairs are
    /// the row's blob as they lie in memory.
    private static func insert(_ keyed: KeyedSequences, batch: Int64, into table: String, db: Database) throws {
        guard !keyed.pairs.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "INSERT INTO \(table) (batch, bucket, entries) VALUES (?, ?, ?)")
        var row = RowInserter(statement, in: db)
        var starts = [Int](repeating: 0, count: 257)
        for pair in keyed.pairs { starts[Int(bucket(pair.key)) + 1] += 1 }
        for index in 1...256 { starts[index] += starts[index - 1] }
        var next = starts
        var ordered = keyed.pairs
        for pair in keyed.pairs {
            let slot = Int(bucket(pair.key))
            ordered[next[slot]] = pair
            next[slot] += 1
        }
        for current in 0..<256 where starts[current] < starts[current + 1] {
            let range = starts[current]..<starts[current + 1]
            ordered[range].sort { (UInt64(bitPattern: $0.key), $0.sequence) < (UInt64(bitPattern: $1.key), $1.sequence) }
            row.bind(batch)
            row.bind(Int64(current))
            ordered[range].withUnsafeBytes { row.bind(pairs: $0) }
            try row.step()
        }
    }

    /// The sequences of one device's observations after `since`, ascending. Rows of another
    /// device with the same key come back too; the caller's filter drops them.
    static func observationSequences(deviceID: String, after since: Int64, in db: Database) throws -> [Int64] {
        let key = key(deviceID)
        return try sequences(for: key, sql: observationLookup, arguments: [bucket(key), since], in: db).filter { $0 > since }.sorted()
    }

    /// Where one device token's requests are: (batch, sequence), newest first (with the same
    /// caveat).
    static func requestLocations(deviceToken: DeviceTokenKey, in db: Database) throws -> [(batch: Int64, sequence: Int64)] {
        let key = key(deviceToken)
        var found: [(batch: Int64, sequence: Int64)] = []
        for row in try Row.fetchAll(db, sql: requestLookup, arguments: [bucket(key)]) {
            let batch: Int64 = row[0]
            try forEachPair(in: row[1]) { pairKey, sequence in
                if pairKey == key { found.append((batch, sequence)) }
            }
        }
        return found.sorted { $0.sequence > $1.sequence }
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
        SELECT i.entries FROM batches b CROSS JOIN observationBuckets i ON i.batch = b.batch AND i.bucket = ?
        WHERE b.lastObservation > ?
        """
    static let requestLookup = "SELECT i.batch, i.entries FROM batches b CROSS JOIN requestBuckets i ON i.batch = b.batch AND i.bucket = ?"

    private static func sequences(for key: Int64, sql: String, arguments: StatementArguments, in db: Database) throws -> Set<Int64> {
        var result = Set<Int64>()
        for blob in try Data.fetchAll(db, sql: sql, arguments: arguments) {
            try forEachPair(in: blob) { pairKey, sequence in
                if pairKey == key { result.insert(sequence) }
            }
        }
        return result
    }

    private static func forEachPair(in blob: Data, _ body: (_ key: Int64, _ sequence: Int64) -> Void) throws {
        guard blob.count % 16 == 0 else {
            throw StoreError(.unreadable, "the store's device index holds \(blob.count) bytes, not a list of (key, sequence) pairs")
        }
        blob.withUnsafeBytes { bytes in
            for offset in stride(from: 0, to: bytes.count, by: 16) {
                body(
                    Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)),
                    Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self))
                )
            }
        }
    }

    /// FNV-1a: stable across processes, unlike `Hasher`, and cheap for 64-character tokens.
    static func key(_ text: String) -> Int64 {
        FNV1a(text).value
    }

    /// The key of the token's lower-case hex text, without making the text.
    static func key(_ token: DeviceTokenKey) -> Int64 {
        guard let words = token.packedWords else { return key(token.hex) }
        var hash = FNV1a()
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 60, through: 0, by: -4) {
                let nibble = UInt8(truncatingIfNeeded: word >> UInt64(shift)) & 0xF
                hash.add(nibble < 10 ? nibble + UInt8(ascii: "0") : nibble - 10 + UInt8(ascii: "a"))
            }
        }
        return hash.value
    }

    /// Indexes a store's rows from before the bucketed index (run once, by migration 4): what a
    /// Pushlab from before any index wrote becomes batch 0; a store indexed by migration 3 has
    /// its (batch, key) rows regrouped by bucket.
    static func indexRowsFromBeforeTheBuckets(in db: Database) throws {
        let hasBatches = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM batches)") ?? false
        guard hasBatches else {
            var byDevice = KeyedSequences()
            let observations = try Row.fetchCursor(db, sql: "SELECT sequence, deviceId FROM observations")
            while let row = try observations.next() { byDevice.add(row[0], key: key(row[1] as String)) }
            var byToken = KeyedSequences()
            let requests = try Row.fetchCursor(db, sql: "SELECT sequence, deviceToken FROM requests")
            while let row = try requests.next() { byToken.add(row[0], key: (row[1] as String?).map { key(DeviceTokenKey($0)) }) }
            guard !byDevice.isEmpty || !byToken.isEmpty else { return }
            try insert(byDevice, byToken, batch: 0, into: db)
            return
        }
        for (old, new, keyColumn) in [("observationIndex", "observationBuckets", "deviceKey"), ("requestIndex", "requestBuckets", "tokenKey")] {
            var batch: Int64?
            var keyed = KeyedSequences()
            let rows = try Row.fetchCursor(db, sql: "SELECT batch, \(keyColumn), sequences FROM \(old) ORDER BY batch")
            while let row = try rows.next() {
                let rowBatch: Int64 = row[0]
                if let batch, batch != rowBatch { try insert(keyed, batch: batch, into: new, db: db); keyed = KeyedSequences() }
                batch = rowBatch
                let blob: Data = row[2]
                blob.withUnsafeBytes { bytes in
                    for offset in stride(from: 0, to: bytes.count - bytes.count % 8, by: 8) {
                        keyed.add(Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)), key: row[1])
                    }
                }
            }
            if let batch { try insert(keyed, batch: batch, into: new, db: db) }
        }
    }
}

/// One batch's (key, sequence) pairs, and the lowest and highest sequence.
private struct KeyedSequences {
    private(set) var pairs: [(key: Int64, sequence: Int64)] = []
    private(set) var first: Int64?
    private(set) var last: Int64?

    var isEmpty: Bool { first == nil }

    mutating func reserve(_ count: Int) { pairs.reserveCapacity(count) }

    /// A sequence without a key (a request with no token) still counts for the batch's range.
    mutating func add(_ sequence: Int64, key: Int64?) {
        first = min(first ?? sequence, sequence)
        last = max(last ?? sequence, sequence)
        if let key { pairs.append((key, sequence)) }
    }
}
