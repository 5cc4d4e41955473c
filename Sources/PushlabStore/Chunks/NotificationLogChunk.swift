import PushlabCore

/// One change to the Notification Centers, as the store's log keeps it.
enum NotificationLogRecord: Equatable {
    /// An entry reached an app's Notification Center (or was moved to the log's end by a
    /// compaction, keeping its sequence).
    case added(LoggedEntry)
    /// The entry delivered at `deliveredAt` (nil: every entry with the identifier) left.
    case removed(deviceID: String, bundleID: String, identifier: String, deliveredAt: Int64?)
    /// The device was removed: every entry it had before this record went with it.
    case deviceRemoved(deviceID: String)
}

/// An entry as the log keeps it: its own fields (`NotificationCenterRows.storedFields(of:)`:
/// nothing for the usual remote notification) and its content's row, or, written before contents
/// had rows, the whole entry as JSON and no content id.
struct LoggedEntry: Equatable {
    var sequence: Int64
    var deliveredAt: Int64
    var deviceID: String
    var bundleID: String
    /// The identifier as the observation carried it: a push's stays a UUID.
    var id: APNsID
    var fields: String
    var contentID: Int64?

    var identifier: String { id.text }
}

/// Notification Center changes as one blob: a load test's entries, each a SQLite row before,
/// cost the writer more than the rest of the push.
///
/// Layout (numbers are LEB128 varints): format version, count, then per record a form byte and
/// its values. An entry added: the sequence and delivery time as zig-zag deltas from the
/// record before, device id and bundle id (string tables), the identifier as a notification id
/// (`ChunkNotificationIDs`), its fields (string table: usually empty) and its content id (0:
/// none). An entry removed: the time as a delta, device, bundle, identifier. A device removed:
/// its id.
enum NotificationLogChunk {
    static let formatVersion: UInt8 = 1
    /// Bounds the work of compacting one blob.
    static let maximumCount = 4096

    private enum Form {
        static let added: UInt8 = 0
        static let removed: UInt8 = 1
        static let removedEveryTime: UInt8 = 2
        static let deviceRemoved: UInt8 = 3
    }

    struct Encoder {
        private(set) var writer = ChunkWriter(capacity: 0)
        private(set) var count = 0
        private var devices = ChunkStringTable(), bundles = ChunkStringTable(), fields = ChunkStringTable()
        private var previousSequence: Int64 = 0
        private var previousTime: Int64 = 0

        init() {}

        mutating func add(_ entry: LoggedEntry) {
            writer.byte(Form.added)
            writer.signed(entry.sequence &- previousSequence)
            previousSequence = entry.sequence
            time(entry.deliveredAt)
            devices.write(entry.deviceID, to: &writer)
            bundles.write(entry.bundleID, to: &writer)
            ChunkNotificationIDs.write(entry.id, to: &writer)
            fields.write(entry.fields, to: &writer)
            // A negative id (a damaged row moved from an older table) is written as it is, and
            // read back as damage rather than trapping here.
            writer.unsigned(entry.contentID.map { UInt64(bitPattern: $0) } ?? 0)
            count += 1
        }

        mutating func remove(deviceID: String, bundleID: String, id: APNsID, deliveredAt: Int64?) {
            writer.byte(deliveredAt == nil ? Form.removedEveryTime : Form.removed)
            if let deliveredAt { time(deliveredAt) }
            devices.write(deviceID, to: &writer)
            bundles.write(bundleID, to: &writer)
            ChunkNotificationIDs.write(id, to: &writer)
            count += 1
        }

        mutating func removeDevice(_ deviceID: String) {
            writer.byte(Form.deviceRemoved)
            devices.write(deviceID, to: &writer)
            count += 1
        }

        mutating func add(_ record: NotificationLogRecord) {
            switch record {
            case .added(let entry): add(entry)
            case .removed(let deviceID, let bundleID, let identifier, let deliveredAt):
                remove(deviceID: deviceID, bundleID: bundleID, id: APNsID(identifier), deliveredAt: deliveredAt)
            case .deviceRemoved(let deviceID): removeDevice(deviceID)
            }
        }

        private mutating func time(_ value: Int64) {
            writer.signed(value &- previousTime)
            previousTime = value
        }

        /// The blob: header, then the records.
        var bytes: [UInt8] {
            var header = ChunkWriter(capacity: 12 + writer.bytes.count)
            header.byte(formatVersion)
            header.unsigned(UInt64(count))
            return header.bytes + writer.bytes
        }
    }

    static func encode(_ records: some Sequence<NotificationLogRecord>) -> [UInt8] {
        var encoder = Encoder()
        for record in records { encoder.add(record) }
        return encoder.bytes
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> [NotificationLogRecord] {
        var reader = ChunkReader(bytes, what: "a blob of the Notification Center log")
        let version = try reader.byte()
        guard version == formatVersion else { throw reader.damaged("has format \(version); this Pushlab reads format \(formatVersion)") }
        let count = try reader.count()
        var devices = ChunkStrings(), bundles = ChunkStrings(), fields = ChunkStrings()
        var records: [NotificationLogRecord] = []
        records.reserveCapacity(count)
        var sequence: Int64 = 0
        var time: Int64 = 0
        func identifier(_ reader: inout ChunkReader) throws(StoreError) -> APNsID {
            guard let identifier = try ChunkNotificationIDs.readValue(from: &reader) else { throw reader.damaged("holds an entry without an identifier") }
            return identifier
        }
        for _ in 0..<count {
            switch try reader.byte() {
            case Form.added:
                sequence &+= try reader.signed()
                time &+= try reader.signed()
                let deviceID = try devices.read(from: &reader)
                let bundleID = try bundles.read(from: &reader)
                let id = try identifier(&reader)
                let text = try fields.read(from: &reader)
                let contentID = try reader.unsigned()
                guard contentID <= UInt64(Int64.max) else { throw reader.damaged("holds a content id past 64 bits") }
                records.append(.added(LoggedEntry(
                    sequence: sequence, deliveredAt: time, deviceID: deviceID, bundleID: bundleID, id: id, fields: text,
                    contentID: contentID == 0 ? nil : Int64(contentID)
                )))
            case let form where form == Form.removed || form == Form.removedEveryTime:
                var deliveredAt: Int64?
                if form == Form.removed {
                    time &+= try reader.signed()
                    deliveredAt = time
                }
                let deviceID = try devices.read(from: &reader)
                let bundleID = try bundles.read(from: &reader)
                records.append(.removed(deviceID: deviceID, bundleID: bundleID, identifier: try identifier(&reader).text, deliveredAt: deliveredAt))
            case Form.deviceRemoved:
                records.append(.deviceRemoved(deviceID: try devices.read(from: &reader)))
            case let form:
                throw reader.damaged("holds a record of an unknown form \(form)")
            }
        }
        guard reader.isAtEnd else { throw reader.damaged("has bytes after its \(count) records") }
        return records
    }
}
