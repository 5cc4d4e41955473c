import PushlabCore

/// Logged pushes of one partition, consecutive in it, as one blob of the `acceptedPushes` table:
/// everything the phone needs to take each of them after a restart.
///
/// Under a long load every push is written (its phone takes it at once, but the observations
/// that would commit the taking wait), so the layout is the observations' kind of compact:
/// numbers are LEB128 varints (zig-zag where signed); texts that repeat across the chunk
/// (environment, kinds, topics) go through string tables; a device token and a device id, new
/// with almost every push of a load, are written as text unless they repeat the push before's
/// (a table would hash and keep every one); the apns-id is two words when it is a canonical
/// UUID; a payload equal to the push before's is a flag (a load test sends one payload).
///
/// Layout: format version, count, then per push its apns-id (`ChunkNotificationIDs`), time
/// received (delta from the push before), connection, expiration (0 absent, else 1 and the
/// value), priority, environment, token kind, device token, bundle id, device id, topic, push
/// type, collapse id (0 absent, else 1 and the text), flags (deliverable; payload as the push
/// before's), and, unless repeated, the payload (length, bytes). Its offsets are the row's
/// `firstOffset` on.
enum AcceptedPushChunk {
    static let formatVersion: UInt8 = 1

    private enum Flag {
        static let deliverable: UInt8 = 1 << 0
        static let samePayload: UInt8 = 1 << 1
    }

    /// The pushes read where they lie: a copy of each retained every string it holds.
    static func encode(_ pushes: UnsafeBufferPointer<AcceptedPush>) -> [UInt8] {
        var encoder = Encoder(count: pushes.count)
        for index in pushes.indices { encoder.add(pushes.baseAddress! + index) }
        return encoder.writer.bytes
    }

    private struct Encoder {
        var writer: ChunkWriter
        /// A table each, so that each mostly finds its last text again, a pointer check.
        private var environments = ChunkStringTable(), kinds = ChunkStringTable(), types = ChunkStringTable(), topics = ChunkStringTable()
        private var tokens = RepeatedText(), devices = RepeatedText()
        private var previousTime: Int64 = 0
        private var previousPayload: PayloadBytes?

        init(count: Int) {
            writer = ChunkWriter(capacity: 16 + count * 96)
            writer.byte(formatVersion)
            writer.unsigned(UInt64(count))
        }

        mutating func add(_ push: UnsafePointer<AcceptedPush>) {
            ChunkNotificationIDs.write(push.pointee.apnsIDValue, to: &writer)
            writer.signed(push.pointee.receivedAt &- previousTime)
            previousTime = push.pointee.receivedAt
            writer.unsigned(push.pointee.connectionID)
            if let expiration = push.pointee.expiration {
                writer.unsigned(1)
                writer.signed(expiration)
            } else {
                writer.unsigned(0)
            }
            writer.signed(Int64(push.pointee.priority))
            environments.write(push.pointee.environment.rawValue, to: &writer)
            kinds.write(push.pointee.tokenKind.rawValue, to: &writer)
            tokens.write(push.pointee.deviceToken, to: &writer)
            topics.write(push.pointee.bundleID, to: &writer)
            devices.write(push.pointee.deviceID ?? "", to: &writer)
            topics.write(push.pointee.topic, to: &writer)
            types.write(push.pointee.pushType.rawValue, to: &writer)
            if let collapseID = push.pointee.collapseID {
                writer.unsigned(1)
                writer.text(collapseID)
            } else {
                writer.unsigned(0)
            }
            let samePayload = previousPayload == push.pointee.payloadBytes
            writer.byte((push.pointee.isDeliverable ? Flag.deliverable : 0) | (samePayload ? Flag.samePayload : 0))
            if !samePayload {
                push.pointee.payloadBytes.withUnsafeBytes { payload in
                    writer.unsigned(UInt64(payload.count))
                    writer.raw(payload)
                }
                previousPayload = push.pointee.payloadBytes
            }
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> [AcceptedPush] {
        var reader = ChunkReader(bytes, what: "a chunk of the log of accepted pushes")
        let version = try reader.byte()
        guard version == formatVersion else { throw reader.damaged("has format \(version); this Pushlab reads format \(formatVersion)") }
        let count = try reader.count()
        var decoder = Decoder()
        var pushes: [AcceptedPush] = []
        pushes.reserveCapacity(count)
        for _ in 0..<count { pushes.append(try decoder.push(from: &reader)) }
        guard reader.isAtEnd else { throw reader.damaged("has bytes after its \(count) pushes") }
        return pushes
    }

    private struct Decoder {
        private var environments = ChunkStrings(), kinds = ChunkStrings(), types = ChunkStrings(), topics = ChunkStrings()
        private var tokens = RepeatedText(), devices = RepeatedText()
        private var previousTime: Int64 = 0
        private var previousPayload: [UInt8]?

        mutating func push(from reader: inout ChunkReader) throws(StoreError) -> AcceptedPush {
            guard let apnsID = try ChunkNotificationIDs.readValue(from: &reader) else { throw reader.damaged("holds a push without an apns-id") }
            let receivedAt = previousTime &+ (try reader.signed())
            previousTime = receivedAt
            let connectionID = try reader.unsigned()
            let expiration: Int64? = try reader.unsigned() == 0 ? nil : try reader.signed()
            let priority = Int(clamping: try reader.signed())
            let environmentText = try environments.read(from: &reader)
            guard let environment = APNsEnvironment(rawValue: environmentText) else { throw reader.damaged("names an unknown environment \(environmentText)") }
            let kindText = try kinds.read(from: &reader)
            guard let kind = DeviceTokenRecord.Kind(rawValue: kindText) else { throw reader.damaged("names an unknown kind of token \(kindText)") }
            let token = try tokens.read(from: &reader)
            let bundleID = try topics.read(from: &reader)
            let deviceID = try devices.read(from: &reader)
            let topic = try topics.read(from: &reader)
            let pushTypeText = try types.read(from: &reader)
            guard let pushType = APNsPushType(rawValue: pushTypeText) else { throw reader.damaged("names an unknown push type \(pushTypeText)") }
            let collapseID: String? = try reader.unsigned() == 0 ? nil : try reader.text()
            let flags = try reader.byte()
            let payload: [UInt8]
            if flags & Flag.samePayload != 0 {
                guard let previousPayload else { throw reader.damaged("repeats the payload of a push before its first") }
                payload = previousPayload
            } else {
                payload = try reader.bytes(count: try reader.count())
                previousPayload = payload
            }
            let registration = DeviceTokenRecord(
                token: token, bundleID: bundleID, environment: environment, kind: kind, deviceID: deviceID.isEmpty ? nil : deviceID
            )
            return AcceptedPush(
                apnsID: apnsID, receivedAt: receivedAt, environment: environment, deviceToken: token, registration: registration, topic: topic,
                bundleID: bundleID, pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID, payload: nil,
                rawPayload: payload, isDeliverable: flags & Flag.deliverable != 0, connectionID: connectionID
            )
        }
    }
}

/// A text that is written whole unless it repeats the one before (0, or its length plus one and
/// its bytes): for texts that are new with almost every record, where a string table would hash
/// and keep each of them for nothing.
struct RepeatedText {
    private var previous: String?

    mutating func write(_ text: String, to writer: inout ChunkWriter) {
        if let previous, previous == text {
            writer.unsigned(0)
            return
        }
        var text = text
        text.withUTF8 { utf8 in
            writer.unsigned(UInt64(utf8.count) + 1)
            writer.raw(UnsafeRawBufferPointer(utf8))
        }
        previous = text
    }

    mutating func read(from reader: inout ChunkReader) throws(StoreError) -> String {
        let length = try reader.unsigned()
        guard length > 0 else {
            guard let previous else { throw reader.damaged("repeats a text before its first") }
            return previous
        }
        guard length - 1 <= UInt64(Int.max) else { throw reader.damaged("claims a text of \(length - 1) bytes") }
        let bytes = try reader.bytes(count: Int(length - 1))
        let text = String(decoding: bytes, as: UTF8.self)
        previous = text
        return text
    }
}
