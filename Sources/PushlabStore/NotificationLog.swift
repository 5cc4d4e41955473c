import Foundation
import GRDB
import PushlabSimulator

/// The writer's side of the Notification Center log (`notificationLog`): each batch's changes
/// (entries added and removed, devices removed) appended as one blob, in sequence order. A row
/// per entry cost the writer more than the rest of the push; a blob costs it one statement.
///
/// Replaying the log from its start gives every Notification Center (`NotificationLogReplay`).
/// Removed entries stay in it until a compaction drops them: once the log holds a removal for
/// every four entries added (and at least `compactionThreshold`), the oldest blobs are rewritten
/// a slice a batch, each entry still there moving to the log's end, until the log's end at the
/// start of the compaction is passed. An entry is gone when a removal of it comes after it in the
/// log (`removedKeys`, the only part of the log held in memory: the oldest blob is read first, so
/// every removal still counted is a later one), or its device was removed since.
///
/// A content row counts the logged entries that use it: a compaction that drops an entry
/// releases its content.
struct NotificationLog {
    private(set) var contents = ContentIDs()
    /// How many timed removals of each key the log holds after the blob being compacted: an
    /// entry with one of these keys was removed (the same entry may come and go twice).
    private var removedKeys: [EntryKey: Int32] = [:]
    /// Removals without a time, by entry key: every entry of the device, app and identifier in
    /// that blob or before went.
    private var removedEverywhere: [Int64: Int64] = [:]
    /// Device removals: the device's entries in that blob or before went.
    private var removedDevices: [String: Int64] = [:]
    private var addedCount = 0
    private var removalCount = 0
    /// A compaction under way rewrites the blobs up to this one.
    private var compactingThrough: Int64?
    private var isRead = false

    /// Timed removals at which a compaction starts, however few entries the log has.
    let compactionThreshold: Int
    /// The fewest records a batch's slice of a compaction reads (it reads whole blobs).
    let smallestSlice: Int

    init(compactionThreshold: Int = 100_000, smallestSlice: Int = NotificationLogChunk.maximumCount) {
        self.compactionThreshold = compactionThreshold
        self.smallestSlice = smallestSlice
    }

    struct EntryKey: Hashable {
        let deliveredAt: Int64
        let key: Int64
    }

    /// Entries added and removals in the log.
    var counts: (added: Int, removals: Int) { (addedCount, removalCount) }

    /// Forgets what it knows of the log (after a rollback, or when another connection changed
    /// it): the next batch reads it again.
    mutating func forget() {
        self = NotificationLog(compactionThreshold: compactionThreshold, smallestSlice: smallestSlice)
    }

    // MARK: Appending

    /// Appends the Notification Center changes among `observations` (in sequence order); returns
    /// how many there were.
    @discardableResult
    mutating func append(_ observations: BatchItems<Observation>, in db: Database) throws -> Int {
        try readIfNeeded(in: db)
        var blob = Blob()
        var logged = 0
        try observations.forEach(in: observations.indices) { observation in
            guard observation.pointee.kind == .notificationCenter,
                  case .notificationCenter(let change, _, let entry) = observation.pointee.event, let id = observation.pointee.notificationIDValue
            else { return }
            let deviceID = observation.pointee.deviceID, bundleID = observation.pointee.bundleID
            switch (change, entry) {
            case (.added, let entry?):
                blob.encoder.add(LoggedEntry(
                    sequence: observation.pointee.sequence, deliveredAt: entry.deliveredAt, deviceID: deviceID, bundleID: bundleID,
                    id: id, fields: NotificationCenterRows.storedFields(of: entry), contentID: try contents.use(entry, in: db)
                ))
                addedCount += 1
            case (.removed, _):
                let deliveredAt = observation.pointee.removedEntryDeliveredAt
                blob.encoder.remove(deviceID: deviceID, bundleID: bundleID, id: id, deliveredAt: deliveredAt)
                let key = NotificationCenterRows.entryKey(deviceID: deviceID, bundleID: bundleID, identifier: id.text)
                if let deliveredAt { removedKeys[EntryKey(deliveredAt: deliveredAt, key: key), default: 0] += 1 } else { blob.removedEverywhere.append(key) }
                removalCount += 1
            case (.added, nil):
                return
            }
            logged += 1
            if blob.encoder.count == NotificationLogChunk.maximumCount { try write(&blob, in: db) }
        }
        try write(&blob, in: db)
        try contents.settle(in: db)
        return logged
    }

    /// Every entry the devices had goes (with their contents, at the next compaction): one record each.
    mutating func removeDevices(_ deviceIDs: [String], in db: Database) throws {
        guard !deviceIDs.isEmpty else { return }
        try readIfNeeded(in: db)
        var blob = Blob()
        for deviceID in deviceIDs {
            blob.encoder.removeDevice(deviceID)
            blob.removedDevices.append(deviceID)
            if blob.encoder.count == NotificationLogChunk.maximumCount { try write(&blob, in: db) }
        }
        try write(&blob, in: db)
    }

    /// Empties the log and the contents (a reseed, on another connection than the writer's:
    /// tell the writer to forget what it knew).
    static func removeAll(in db: Database) throws {
        try db.execute(sql: "DELETE FROM notificationLog")
        try db.execute(sql: "DELETE FROM notificationContents")
    }

    /// Records waiting to be written as one blob, and what the blob's id must be remembered for.
    private struct Blob {
        var encoder = NotificationLogChunk.Encoder()
        var removedEverywhere: [Int64] = []
        var removedDevices: [String] = []
    }

    private mutating func write(_ blob: inout Blob, in db: Database) throws {
        guard blob.encoder.count > 0 else { return }
        let id = try Self.insert(blob.encoder.bytes, in: db)
        for key in blob.removedEverywhere { removedEverywhere[key] = id }
        for deviceID in blob.removedDevices { removedDevices[deviceID] = id }
        blob = Blob()
    }

    static func insert(_ bytes: [UInt8], in db: Database) throws -> Int64 {
        var row = RowInserter(try db.cachedStatement(sql: "INSERT INTO notificationLog (records) VALUES (?)"), in: db)
        row.bind(blob: bytes)
        try row.step()
        return db.lastInsertedRowID
    }

    // MARK: Compacting

    /// Compacts a slice of the log if a compaction is due or under way (`logged`: the changes
    /// this batch appended), or the whole log if anything in it was removed (`compactingAll`).
    mutating func compactIfDue(logged: Int, compactingAll: Bool, in db: Database) throws {
        try readIfNeeded(in: db)
        if compactingAll {
            guard removalCount > 0 || !removedDevices.isEmpty || !removedEverywhere.isEmpty else { return }
            compactingThrough = try Self.lastBlob(in: db)
            try compact(budget: .max, in: db)
            try contents.settle(in: db)
            return
        }
        if compactingThrough == nil, removalCount >= max(compactionThreshold, addedCount / 4) {
            compactingThrough = try Self.lastBlob(in: db)
        }
        guard compactingThrough != nil else { return }
        // Four times what came in: the compaction ends before as many removals come in again.
        try compact(budget: max(logged * 4, smallestSlice), in: db)
        try contents.settle(in: db)
    }

    private static func lastBlob(in db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM notificationLog")
    }

    /// Rewrites the oldest blobs, up to `compactingThrough`, until `budget` records were read.
    private mutating func compact(budget: Int, in db: Database) throws {
        guard let through = compactingThrough else { return }
        let oldest = try db.cachedStatement(sql: "SELECT id, records FROM notificationLog WHERE id <= ? ORDER BY id LIMIT 1")
        let delete = try db.cachedStatement(sql: "DELETE FROM notificationLog WHERE id = ?")
        var read = 0
        var kept = NotificationLogChunk.Encoder()
        while read < budget {
            guard let row = try Row.fetchOne(oldest, arguments: [through]) else {
                compactingThrough = nil
                break
            }
            let id: Int64 = row[0]
            let records = try NotificationLogReplay.decode(row[1])
            read += records.count
            for record in records {
                switch record {
                case .added(let entry):
                    if isGone(entry, blob: id) {
                        addedCount -= 1
                        if let contentID = entry.contentID { contents.release(contentID) }
                    } else {
                        kept.add(entry)
                        if kept.count == NotificationLogChunk.maximumCount {
                            _ = try Self.insert(kept.bytes, in: db)
                            kept = NotificationLogChunk.Encoder()
                        }
                    }
                case .removed(let deviceID, let bundleID, let identifier, let deliveredAt):
                    // Every entry it could remove was older, and was read before it.
                    let key = NotificationCenterRows.entryKey(deviceID: deviceID, bundleID: bundleID, identifier: identifier)
                    if let deliveredAt {
                        let removal = EntryKey(deliveredAt: deliveredAt, key: key)
                        if let count = removedKeys[removal], count > 1 { removedKeys[removal] = count - 1 } else { removedKeys[removal] = nil }
                    } else if removedEverywhere[key] == id {
                        removedEverywhere[key] = nil
                    }
                    removalCount -= 1
                case .deviceRemoved(let deviceID):
                    if removedDevices[deviceID] == id { removedDevices[deviceID] = nil }
                }
            }
            try delete.execute(arguments: [id])
        }
        if kept.count > 0 { _ = try Self.insert(kept.bytes, in: db) }
    }

    private func isGone(_ entry: LoggedEntry, blob: Int64) -> Bool {
        if let removal = removedDevices[entry.deviceID], blob <= removal { return true }
        let key = NotificationCenterRows.entryKey(deviceID: entry.deviceID, bundleID: entry.bundleID, identifier: entry.identifier)
        if removedKeys[EntryKey(deliveredAt: entry.deliveredAt, key: key)] != nil { return true }
        if let removal = removedEverywhere[key], blob <= removal { return true }
        return false
    }

    // MARK: Reading

    /// What the log holds that compaction needs, read once (when the store opens, before
    /// anything waits for a commit).
    mutating func readIfNeeded(in db: Database) throws {
        guard !isRead else { return }
        let blobs = try Row.fetchCursor(db, sql: "SELECT id, records FROM notificationLog ORDER BY id")
        while let row = try blobs.next() {
            let id: Int64 = row[0]
            for record in try NotificationLogReplay.decode(row[1]) {
                switch record {
                case .added:
                    addedCount += 1
                case .removed(let deviceID, let bundleID, let identifier, let deliveredAt):
                    let key = NotificationCenterRows.entryKey(deviceID: deviceID, bundleID: bundleID, identifier: identifier)
                    if let deliveredAt { removedKeys[EntryKey(deliveredAt: deliveredAt, key: key), default: 0] += 1 } else { removedEverywhere[key] = id }
                    removalCount += 1
                case .deviceRemoved(let deviceID):
                    removedDevices[deviceID] = id
                }
            }
        }
        isRead = true
    }
}
