import PushlabCore

/// Logged pushes of one partition, consecutive in it, as one blob of the `acceptedPushes` table:
/// everything the phone needs to take each of them after a restart.
///
/// Layout (numbers are LEB128 varints, zig-zag where signed): format version, count, then per
/// push its apns-id (text), time received, connection, expiration (0 absent, else the value + 1
/// zig-zagged), priority, environment, token kind, device token, bundle id, device id, topic,
/// push type, collapse id (0 absent, 1 then text), deliverable (0 or 1), the payload (length,
/// bytes). Its offsets are the row's `firstOffset` on.
enum AcceptedPushChunk {
    static let formatVersion: UInt8 = 1

    static func encode(_ pushes: some Collection<AcceptedPush>) -> [UInt8] {
        var writer = ChunkWriter(capacity: 16 + pushes.count * 256)
        writer.byte(formatVersion)
        writer.unsigned(UInt64(pushes.count))
        for push in pushes { add(push, to: &writer) }
        return writer.bytes
    }

    private static func add(_ push: AcceptedPush, to writer: inout ChunkWriter) {
        writer.text(push.apnsIDValue.text)
        writer.signed(push.receivedAt)
        writer.unsigned(push.connectionID)
        if let expiration = push.expiration {
            writer.unsigned(1)
            writer.signed(expiration)
        } else {
            writer.unsigned(0)
        }
        writer.signed(Int64(push.priority))
        writer.text(push.environment.rawValue)
        writer.text((push.registration?.kind ?? .app).rawValue)
        writer.text(push.deviceToken)
        writer.text(push.bundleID)
        writer.text(push.deviceID ?? "")
        writer.text(push.topic)
        writer.text(push.pushType.rawValue)
        if let collapseID = push.collapseID {
            writer.unsigned(1)
            writer.text(collapseID)
        } else {
            writer.unsigned(0)
        }
        writer.byte(push.isDeliverable ? 1 : 0)
        push.payloadBytes.withUnsafeBytes { payload in
            writer.unsigned(UInt64(payload.count))
            writer.raw(payload)
        }
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> [AcceptedPush] {
        var reader = ChunkReader(bytes, what: "a chunk of the log of accepted pushes")
        let version = try reader.byte()
        guard version == formatVersion else { throw reader.damaged("has format \(version); this Pushlab reads format \(formatVersion)") }
        let count = try reader.count()
        var pushes: [AcceptedPush] = []
        pushes.reserveCapacity(count)
        for _ in 0..<count { pushes.append(try push(from: &reader)) }
        guard reader.isAtEnd else { throw reader.damaged("has bytes after its \(count) pushes") }
        return pushes
    }

    private static func push(from reader: inout ChunkReader) throws(StoreError) -> AcceptedPush {
        let apnsID = APNsID(try reader.text())
        let receivedAt = try reader.signed()
        let connectionID = try reader.unsigned()
        let expiration: Int64? = try reader.unsigned() == 0 ? nil : try reader.signed()
        let priority = Int(clamping: try reader.signed())
        let environmentText = try reader.text()
        guard let environment = APNsEnvironment(rawValue: environmentText) else { throw reader.damaged("names an unknown environment \(environmentText)") }
        let kindText = try reader.text()
        guard let kind = DeviceTokenRecord.Kind(rawValue: kindText) else { throw reader.damaged("names an unknown kind of token \(kindText)") }
        let token = try reader.text()
        let bundleID = try reader.text()
        let deviceID = try reader.text()
        let topic = try reader.text()
        let pushTypeText = try reader.text()
        guard let pushType = APNsPushType(rawValue: pushTypeText) else { throw reader.damaged("names an unknown push type \(pushTypeText)") }
        let collapseID: String? = try reader.unsigned() == 0 ? nil : try reader.text()
        let isDeliverable = try reader.byte() != 0
        let payload = try reader.bytes(count: try reader.count())
        let registration = DeviceTokenRecord(
            token: token, bundleID: bundleID, environment: environment, kind: kind, deviceID: deviceID.isEmpty ? nil : deviceID
        )
        return AcceptedPush(
            apnsID: apnsID, receivedAt: receivedAt, environment: environment, deviceToken: token, registration: registration, topic: topic,
            bundleID: bundleID, pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID, payload: nil,
            rawPayload: payload, isDeliverable: isDeliverable, connectionID: connectionID
        )
    }
}
