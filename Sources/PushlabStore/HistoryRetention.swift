import GRDB

/// Keeps the store's history to about the newest `limit` observations and the newest `limit`
/// requests. The file outlives runs, and a load test records millions a minute: without a bound
/// the default `pushlab.db` would grow with every run until the disk is full.
///
/// Each kind is trimmed on its own (a few observations from the start of a run must not keep a
/// load test's requests), a batch at a time, oldest first, so its index rows leave with it and
/// a query never meets half of a batch's rows of a kind. Trimming waits until a kind holds a
/// tenth more than the limit, then comes back down to it: one larger delete now and then rather
/// than a small one per batch. The cut is by sequence number, so items the backlog dropped
/// (gaps) count as kept. Device snapshots and Notification Center are current state, not
/// history: never trimmed.
struct HistoryRetention: Sendable {
    let limit: Int

    /// How far past the limit a kind may go before it is trimmed.
    var slack: Int { max(limit / 10, 1) }

    /// Whether `count` items of a kind (or a span of sequence numbers) call for a trim.
    func isExceeded(by count: Int) -> Bool { count >= limit + slack }

    struct TrimmedCounts: Equatable {
        var observations = 0
        var requests = 0
    }

    /// Runs inside the writer's transaction, after the batch's rows are in.
    func trim(in db: Database) throws -> TrimmedCounts {
        let observations = try span(oldest: "firstSequence", newest: "lastSequence", in: "observationChunks", db: db)
        let requests = try span(oldest: "lastSequence", newest: "lastSequence", in: "requestChunks", db: db)
        let trimsObservations = isExceeded(observations), trimsRequests = isExceeded(requests)
        guard trimsObservations || trimsRequests else { return TrimmedCounts() }
        let firstObservationBatch = try firstKeptBatch(observations, trimmed: trimsObservations, column: "lastObservation", db: db)
        let firstRequestBatch = try firstKeptBatch(requests, trimmed: trimsRequests, column: "lastRequest", db: db)

        var trimmed = TrimmedCounts()
        if trimsObservations, let first = firstObservationBatch {
            trimmed.observations = try Int.fetchOne(
                db, sql: "SELECT COALESCE(SUM(count), 0) FROM observationChunks WHERE batch < ?", arguments: [first]
            ) ?? 0
            try db.execute(sql: "DELETE FROM observationChunks WHERE batch < ?", arguments: [first])
            try db.execute(sql: "DELETE FROM observationBuckets WHERE batch < ?", arguments: [first])
        }
        if trimsRequests, let first = firstRequestBatch {
            // A chunk's range is its count: a batch's requests are numbered in a row (a request
            // recorded late by another event loop can make one of them a request too many).
            trimmed.requests = try Int.fetchOne(
                db, sql: "SELECT COALESCE(SUM(lastSequence - firstSequence + 1), 0) FROM requestChunks WHERE batch < ?", arguments: [first]
            ) ?? 0
            try db.execute(sql: "DELETE FROM requestChunks WHERE batch < ?", arguments: [first])
            try db.execute(sql: "DELETE FROM requestBuckets WHERE batch < ?", arguments: [first])
        }
        // A batch's row goes once neither kind has anything left in it.
        let observationsFrom = firstObservationBatch ?? .max, requestsFrom = firstRequestBatch ?? .max
        try db.execute(
            sql: "DELETE FROM batches WHERE batch < ? AND (lastObservation IS NULL OR batch < ?) AND (lastRequest IS NULL OR batch < ?)",
            arguments: [max(observationsFrom, requestsFrom), observationsFrom, requestsFrom]
        )
        return trimmed
    }

    private typealias Span = (oldest: Int64, newest: Int64)

    private func isExceeded(_ span: Span?) -> Bool {
        span.map { isExceeded(by: Int($0.newest - $0.oldest)) } ?? false
    }

    /// The first batch that holds any of what a kind keeps: its newest `limit` when it is
    /// trimmed, all it has otherwise; nil when it has nothing.
    private func firstKeptBatch(_ span: Span?, trimmed: Bool, column: String, db: Database) throws -> Int64? {
        guard let span else { return nil }
        let lastGone = trimmed ? span.newest - Int64(limit) : span.oldest - 1
        return try Int64.fetchOne(db, sql: "SELECT batch FROM batches WHERE \(column) > ? ORDER BY batch LIMIT 1", arguments: [lastGone])
    }

    /// The lowest and highest sequence of a kind, each read from an index; nil when empty.
    private func span(oldest oldestColumn: String, newest newestColumn: String, in table: String, db: Database) throws -> Span? {
        guard let newest = try Int64.fetchOne(db, sql: "SELECT MAX(\(newestColumn)) FROM \(table)"),
              let oldest = try Int64.fetchOne(db, sql: "SELECT MIN(\(oldestColumn)) FROM \(table)")
        else { return nil }
        return (oldest, newest)
    }
}
