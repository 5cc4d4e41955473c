import GRDB
import PushlabSimulator

/// The writer's side of `notificationContents`: finds or adds a content's row and counts its
/// users. Counts change in memory and reach the rows at `settle(in:)`, once per content per
/// batch (a load test's pushes each add a user and, with a full Notification Center, take one
/// away: two updates of one row per push before); the rows of the last few shared parts are
/// remembered, so a load test's pushes look nothing up.
struct ContentIDs {
    private var recent: [(part: DeliveredNotification.Shared, id: Int64)] = []
    private var next = 0
    private var texts = ContentTexts()
    /// Users added (or, below zero, gone) since the last `settle(in:)`.
    private var changes: [Int64: Int] = [:]
    private static let size = 16

    /// The content's row, counting one more user.
    mutating func use(_ entry: DeliveredNotification, in db: Database) throws -> Int64 {
        let part = entry.sharedPart
        if let known = recent.first(where: { $0.part === part }) {
            changes[known.id, default: 0] += 1
            return known.id
        }
        let text = texts.text(of: entry)
        let hash = BatchIndexRows.key(text)
        let find = try db.cachedStatement(sql: "SELECT id FROM notificationContents WHERE hash = ? AND json = ?")
        let id: Int64
        if let found = try Int64.fetchOne(find, arguments: [hash, text]) {
            id = found
        } else {
            let add = try db.cachedStatement(sql: "INSERT INTO notificationContents (hash, json, refs) VALUES (?, ?, 0)")
            try add.execute(arguments: [hash, text])
            id = db.lastInsertedRowID
        }
        changes[id, default: 0] += 1
        remember(part, id)
        return id
    }

    /// One user fewer.
    mutating func release(_ id: Int64) {
        changes[id, default: 0] -= 1
    }

    /// Writes the counts; a row whose last user left goes (and is forgotten).
    mutating func settle(in db: Database) throws {
        guard !changes.isEmpty else { return }
        let update = try db.cachedStatement(sql: "UPDATE notificationContents SET refs = refs + ? WHERE id = ? RETURNING refs")
        let delete = try db.cachedStatement(sql: "DELETE FROM notificationContents WHERE id = ?")
        for (id, change) in changes where change != 0 {
            guard let refs = try Int.fetchOne(update, arguments: [change, id]), refs <= 0 else { continue }
            try delete.execute(arguments: [id])
            recent.removeAll { $0.id == id }
            next = 0
        }
        changes = [:]
    }

    private mutating func remember(_ part: DeliveredNotification.Shared, _ id: Int64) {
        if recent.count < Self.size {
            recent.append((part, id))
        } else {
            recent[next] = (part, id)
            next = (next + 1) % Self.size
        }
    }
}
