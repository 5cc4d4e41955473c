import Foundation
import GRDB
import PushlabCore
import PushlabSimulator

/// Every Notification Center, read back by replaying the log (`NotificationLog`) from its start.
/// Entries of one content share it in memory too.
struct NotificationLogReplay {
    private var byDevice: [String: [String: [(sequence: Int64, entry: DeliveredNotification)]]] = [:]
    private var firstOfContent: [Int64: DeliveredNotification] = [:]
    private let contentText: Statement

    /// Every device's entries, oldest first per app: [deviceId: [bundleId: entries]].
    static func all(in db: Database) throws -> [String: [String: [DeliveredNotification]]] {
        var replay = try NotificationLogReplay(db)
        let blobs = try Row.fetchCursor(db, sql: "SELECT records FROM notificationLog ORDER BY id")
        while let row = try blobs.next() {
            for record in try decode(row[0]) { try replay.apply(record) }
        }
        return replay.byDevice.mapValues { apps in
            apps.mapValues { entries in
                // A compaction moves the entries it keeps to the log's end.
                var entries = entries
                if !entries.indices.dropFirst().allSatisfy({ entries[$0 - 1].sequence < entries[$0].sequence }) {
                    entries.sort { $0.sequence < $1.sequence }
                }
                return entries.map(\.entry)
            }
        }
    }

    private init(_ db: Database) throws {
        contentText = try db.cachedStatement(sql: "SELECT json FROM notificationContents WHERE id = ?")
    }

    static func decode(_ blob: Data) throws(StoreError) -> [NotificationLogRecord] {
        try blob.decodedChunk("a blob of the Notification Center log", NotificationLogChunk.decode)
    }

    private mutating func apply(_ record: NotificationLogRecord) throws {
        switch record {
        case .added(let logged):
            let entry = try self.entry(logged)
            // The same entry listed again in the same millisecond: the newer replaces it. A
            // compaction may have moved the older one after it in the log.
            var newer = false
            byDevice[logged.deviceID, default: [:]][logged.bundleID, default: []].removeAll {
                guard $0.entry.deliveredAt == logged.deliveredAt, $0.entry.hasIdentifier(logged.identifier) else { return false }
                if $0.sequence > logged.sequence { newer = true }
                return $0.sequence < logged.sequence
            }
            if !newer { byDevice[logged.deviceID, default: [:]][logged.bundleID, default: []].append((logged.sequence, entry)) }
        case .removed(let deviceID, let bundleID, let identifier, let deliveredAt):
            byDevice[deviceID]?[bundleID]?.removeAll { ($0.entry.deliveredAt == deliveredAt || deliveredAt == nil) && $0.entry.hasIdentifier(identifier) }
        case .deviceRemoved(let deviceID):
            byDevice[deviceID] = nil
        }
    }

    private mutating func entry(_ logged: LoggedEntry) throws -> DeliveredNotification {
        func unreadable() -> StoreError {
            StoreError(.unreadable, "Notification Center entry \(logged.identifier) of \(logged.deviceID) cannot be read back: \(logged.fields)")
        }
        let fields = logged.fields.isEmpty ? Self.usualFields(identifier: logged.identifier, deliveredAt: logged.deliveredAt) : try? JSONParser.parse(logged.fields)
        guard let fields, case .object(var members) = fields else { throw unreadable() }
        guard let contentID = logged.contentID else {
            // Written before contents had rows: the fields hold the content.
            guard let entry = DeliveredNotification(json: fields) else { throw unreadable() }
            return entry
        }
        if let first = firstOfContent[contentID], let entry = DeliveredNotification(fields: fields, sharingContentWith: first) {
            return entry
        }
        guard let text = try String.fetchOne(contentText, arguments: [contentID]), let content = try? JSONParser.parse(text) else {
            throw StoreError(.unreadable, "Notification Center entry \(logged.identifier) of \(logged.deviceID) refers to content \(contentID), which the store lacks")
        }
        members.append(("content", content))
        guard let entry = DeliveredNotification(json: .object(members)) else { throw unreadable() }
        firstOfContent[contentID] = entry
        return entry
    }

    /// The fields `NotificationCenterRows.storedFields(of:)` leaves out.
    private static func usualFields(identifier: String, deliveredAt: Int64) -> JSONValue {
        .object([
            ("identifier", .string(identifier)), ("isLocal", .bool(false)), ("trigger", .string(NotificationCenterRows.usualTrigger)),
            ("deliveredAt", .number(Double(deliveredAt))),
        ])
    }
}
