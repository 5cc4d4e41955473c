import PushlabCore

/// Up to `maximumCount` request-log entries of one batch as one blob, instead of one SQLite row
/// each: under load a row per request cost the writer more CPU than the request cost the server.
///
/// Layout (all numbers LEB128 varints): format version, entry count, then per entry
/// sequence and time as zig-zag deltas from the entry before, connection id, a flags byte,
/// environment, device token (four words when it is 64 hex digits, else text), topic, push type,
/// status, reason, and `apns-id` (two words when canonical, else text). Environment, topic, push
/// type and reason are each written once per chunk and then referred to by index (a table per
/// field); absent fields are only a flag. Format 2 adds the broadcast channel id (text, after
/// the `apns-id`, flagged); a chunk without one is still written as format 1, which older
/// Pushlabs read.
enum RequestChunk {
    static let formatVersion: UInt8 = 2
    static let formatWithoutChannels: UInt8 = 1
    /// Bounds the work of a query that needs one entry of a chunk.
    static let maximumCount = 2048

    private enum Flag {
        static let packedToken: UInt8 = 1 << 0
        static let textToken: UInt8 = 1 << 1
        static let topic: UInt8 = 1 << 2
        static let pushType: UInt8 = 1 << 3
        static let reason: UInt8 = 1 << 4
        static let upperCaseUUID: UInt8 = 1 << 5
        static let lowerCaseUUID: UInt8 = 1 << 6
        static let channelID: UInt8 = 1 << 7
    }

    static func encode(_ entries: ArraySlice<RequestLog.Entry>) -> [UInt8] {
        encode(BatchItems([Array(entries)]), in: 0..<entries.count)
    }

    /// The batch's requests in `range`, encoded where they lie.
    static func encode(_ entries: BatchItems<RequestLog.Entry>, in range: Range<Int>) -> [UInt8] {
        var anyChannel = false
        entries.forEach(in: range) { entry in anyChannel = anyChannel || entry.pointee.channelID != nil }
        var encoder = Encoder(count: range.count, withChannels: anyChannel)
        entries.forEach(in: range) { entry in encoder.add(entry) }
        return encoder.writer.bytes
    }

    /// One chunk's writer and string tables: a struct with a method rather than a local
    /// function capturing them, whose captured variables were checked for exclusive access at
    /// run time on every use.
    private struct Encoder {
        var writer: ChunkWriter
        // One table per field: each remembers its last value, which the next entry mostly repeats.
        private var environments = ChunkStringTable(), topics = ChunkStringTable(), pushTypes = ChunkStringTable(), reasons = ChunkStringTable()
        private var previousSequence: Int64 = 0
        private var previousTime: Int64 = 0

        init(count: Int, withChannels: Bool) {
            writer = ChunkWriter(capacity: 16 + count * 72)
            writer.byte(withChannels ? formatVersion : formatWithoutChannels)
            writer.unsigned(UInt64(count))
        }

        mutating func add(_ entry: UnsafePointer<RequestLog.Entry>) {
            writer.signed(entry.pointee.sequence &- previousSequence)
            writer.signed(entry.pointee.time &- previousTime)
            (previousSequence, previousTime) = (entry.pointee.sequence, entry.pointee.time)
            writer.unsigned(entry.pointee.connectionID)

            let words = entry.pointee.deviceTokenKey?.packedWords
            let uuid = entry.pointee.apnsIDValue.canonical
            var flags: UInt8 = 0
            if words != nil { flags |= Flag.packedToken } else if entry.pointee.deviceTokenKey != nil { flags |= Flag.textToken }
            if entry.pointee.topic != nil { flags |= Flag.topic }
            if entry.pointee.pushType != nil { flags |= Flag.pushType }
            if entry.pointee.reason != nil { flags |= Flag.reason }
            if let uuid { flags |= uuid.isLowercase ? Flag.lowerCaseUUID : Flag.upperCaseUUID }
            if entry.pointee.channelID != nil { flags |= Flag.channelID }
            writer.byte(flags)

            environments.write(entry.pointee.environment.rawValue, to: &writer)
            if let words {
                writer.word(words.0)
                writer.word(words.1)
                writer.word(words.2)
                writer.word(words.3)
            } else if let token = entry.pointee.deviceToken {
                writer.text(token)
            }
            if let topic = entry.pointee.topic { topics.write(topic, to: &writer) }
            if let pushType = entry.pointee.pushType { pushTypes.write(pushType, to: &writer) }
            writer.signed(Int64(entry.pointee.status))
            if let reason = entry.pointee.reason { reasons.write(reason.rawValue, to: &writer) }
            if let uuid {
                writer.word(uuid.high)
                writer.word(uuid.low)
            } else {
                writer.text(entry.pointee.apnsID)
            }
            if let channelID = entry.pointee.channelID { writer.text(channelID) }
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> [RequestLog.Entry] {
        var reader = ChunkReader(bytes, what: "a chunk of saved requests")
        let version = try reader.byte()
        guard version == formatVersion || version == formatWithoutChannels else {
            throw reader.damaged("has format \(version); this Pushlab reads formats \(formatWithoutChannels) and \(formatVersion)")
        }
        let count = try reader.count()
        var environments = ChunkStrings(), topics = ChunkStrings(), pushTypes = ChunkStrings(), reasons = ChunkStrings()
        var entries: [RequestLog.Entry] = []
        entries.reserveCapacity(count)
        var sequence: Int64 = 0
        var time: Int64 = 0
        for _ in 0..<count {
            sequence &+= try reader.signed()
            time &+= try reader.signed()
            let connectionID = try reader.unsigned()
            let flags = try reader.byte()
            let environmentText = try environments.read(from: &reader)
            guard let environment = APNsEnvironment(rawValue: environmentText) else {
                throw reader.damaged("holds request \(sequence) with an unknown environment \(environmentText)")
            }
            var token: DeviceTokenKey?
            if flags & Flag.packedToken != 0 {
                token = DeviceTokenKey(packedWords: (try reader.word(), try reader.word(), try reader.word(), try reader.word()))
            } else if flags & Flag.textToken != 0 {
                token = DeviceTokenKey(try reader.text())
            }
            let topic = flags & Flag.topic != 0 ? try topics.read(from: &reader) : nil
            let pushType = flags & Flag.pushType != 0 ? try pushTypes.read(from: &reader) : nil
            let status = try reader.signed()
            var reason: APNsErrorReason?
            if flags & Flag.reason != 0 {
                let text = try reasons.read(from: &reader)
                guard let known = APNsErrorReason(rawValue: text) else { throw reader.damaged("holds request \(sequence) with an unknown reason \(text)") }
                reason = known
            }
            let apnsID: APNsID
            if flags & (Flag.upperCaseUUID | Flag.lowerCaseUUID) != 0 {
                apnsID = APNsID(CanonicalUUID(high: try reader.word(), low: try reader.word(), isLowercase: flags & Flag.lowerCaseUUID != 0))
            } else {
                apnsID = APNsID(try reader.text())
            }
            let channelID = flags & Flag.channelID != 0 ? try reader.text() : nil
            entries.append(RequestLog.Entry(
                sequence: sequence, time: time, connectionID: connectionID, environment: environment, deviceTokenKey: token,
                topic: topic, pushType: pushType, status: Int(truncatingIfNeeded: status), reason: reason, apnsID: apnsID,
                channelID: channelID
            ))
        }
        guard reader.isAtEnd else { throw reader.damaged("has bytes after its \(count) requests") }
        return entries
    }
}
