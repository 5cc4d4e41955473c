import Foundation
import GRDB
import PushlabCore

/// The log of accepted pushes on disk (`AcceptedPushLog`): `acceptedPushes` holds runs of one
/// partition's pushes as blobs (`AcceptedPushChunk`), `acceptedPushesTaken` how far each
/// partition's phones have taken. Both change in the batch's transaction, with the observations
/// of the pushes taken: a crash keeps both or neither.
enum AcceptedPushRows {
    /// Writes what the batch logged and what its phones took. A push taken in the same batch
    /// is never written: when the phones keep pace, the log costs one statement a batch.
    static func write(
        _ chunks: [(pushes: [AcceptedPush], positions: LoggedPositions)], taking: [LoggedPushPosition], into db: Database
    ) throws {
        guard !chunks.isEmpty || !taking.isEmpty else { return }
        var taken = try takenThrough(in: db)
        var advanced: [Int: Int64] = [:]
        for position in taking where position.offset > taken[position.partition, default: 0] {
            taken[position.partition] = position.offset
            advanced[position.partition] = position.offset
        }
        let insert = try db.cachedStatement(sql: "INSERT INTO acceptedPushes (partition, firstOffset, lastOffset, records) VALUES (?, ?, ?, ?)")
        for chunk in chunks {
            for run in runs(of: chunk.positions) {
                let through = taken[run.partition, default: 0]
                let skipped = Int(max(0, min(Int64(run.indices.count), through - run.firstOffset + 1)))
                guard skipped < run.indices.count else { continue }
                let kept = run.indices.dropFirst(skipped)
                var start = kept.startIndex
                while start < kept.endIndex {
                    let end = min(start + maximumCount, kept.endIndex)
                    let first = run.firstOffset + Int64(start - run.indices.lowerBound)
                    var row = RowInserter(insert, in: db)
                    row.bind(Int64(run.partition))
                    row.bind(first)
                    row.bind(first + Int64(end - start) - 1)
                    row.bind(blob: chunk.pushes.withUnsafeBufferPointer { pushes in
                        AcceptedPushChunk.encode(UnsafeBufferPointer(rebasing: pushes[start..<end]))
                    })
                    try row.step()
                    start = end
                }
            }
        }
        for (partition, through) in advanced {
            try db.execute(sql: "DELETE FROM acceptedPushes WHERE partition = ? AND lastOffset <= ?", arguments: [partition, through])
            try setTaken(partition, through: through, in: db)
        }
    }

    private static func setTaken(_ partition: Int, through: Int64, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO acceptedPushesTaken (partition, takenThrough) VALUES (?, ?) ON CONFLICT(partition) DO UPDATE SET takenThrough = excluded.takenThrough",
            arguments: [partition, through]
        )
    }

    /// Pushes a blob holds at most: bounds what one read of a restart decodes at once.
    static let maximumCount = 1024

    /// A run of consecutive offsets of one partition, as indexes into the chunk's pushes.
    struct Run {
        var partition: Int
        var firstOffset: Int64
        var indices: Range<Int>
    }

    /// The positions cut into runs (pushes not logged are left out).
    static func runs(of positions: LoggedPositions) -> [Run] {
        if case .run(let partition, let first, let count) = positions {
            return count > 0 ? [Run(partition: partition, firstOffset: first, indices: 0..<count)] : []
        }
        var runs: [Run] = []
        for index in positions.indices {
            guard let position = positions[index] else { continue }
            if let last = runs.last, last.partition == position.partition, last.indices.upperBound == index,
               last.firstOffset + Int64(last.indices.count) == position.offset {
                runs[runs.count - 1].indices = last.indices.lowerBound..<(index + 1)
            } else {
                runs.append(Run(partition: position.partition, firstOffset: position.offset, indices: index..<(index + 1)))
            }
        }
        return runs
    }

    /// The phones these pushes were for are gone (the store starts over from another
    /// scenario): every push counts as taken, and numbering goes on.
    static func discardAll(in db: Database) throws {
        for (partition, last) in try lastOffsets(in: db) { try setTaken(partition, through: last, in: db) }
        try db.execute(sql: "DELETE FROM acceptedPushes")
    }

    /// How far each partition's phones have taken.
    static func takenThrough(in db: Database) throws -> [Int: Int64] {
        var taken: [Int: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT partition, takenThrough FROM acceptedPushesTaken") {
            taken[row[0]] = row[1]
        }
        return taken
    }

    /// The highest offset each partition has given, taken or not: numbering goes on after it.
    static func lastOffsets(in db: Database) throws -> [Int: Int64] {
        var last = try takenThrough(in: db)
        for row in try Row.fetchAll(db, sql: "SELECT partition, MAX(lastOffset) FROM acceptedPushes GROUP BY partition") {
            let partition: Int = row[0]
            last[partition] = max(last[partition, default: 0], row[1])
        }
        return last
    }

    /// Every push logged and not taken, by partition, oldest first.
    static func untaken(in db: Database) throws -> [LoggedPush] {
        let taken = try takenThrough(in: db)
        var logged: [LoggedPush] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT partition, firstOffset, records FROM acceptedPushes ORDER BY partition, firstOffset")
        while let row = try rows.next() {
            let partition: Int = row[0]
            let first: Int64 = row[1]
            let blob: Data = row[2]
            let pushes = try blob.decodedChunk("a chunk of the log of accepted pushes", AcceptedPushChunk.decode)
            for (index, push) in pushes.enumerated() {
                let offset = first + Int64(index)
                if offset > taken[partition, default: 0] {
                    logged.append(LoggedPush(position: LoggedPushPosition(partition: partition, offset: offset), push: push))
                }
            }
        }
        return logged
    }
}
