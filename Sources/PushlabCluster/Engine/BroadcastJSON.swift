import PushlabCore

/// A broadcast as each partition's log holds it (`EngineIntake.appendBroadcast`): JSON any node
/// reads back, its payload as the text it was sent as.
enum BroadcastJSON {
    static func encode(_ broadcast: AcceptedBroadcast) -> [UInt8] {
        var fields: [(String, JSONValue)] = [
            ("requestId", .string(broadcast.requestID.text)), ("receivedAt", .number(Double(broadcast.receivedAt))),
            ("environment", .string(broadcast.environment.rawValue)), ("bundleId", .string(broadcast.bundleID)),
            ("channel", .object(channelFields(broadcast.channel))),
            ("priority", .number(Double(broadcast.priority))), ("connectionId", .number(Double(broadcast.connectionID))),
            ("payload", .string(String(decoding: broadcast.payloadBytes.array, as: UTF8.self))),
        ]
        if let expiration = broadcast.expiration { fields.append(("expiration", .number(Double(expiration)))) }
        return Array(JSONValue.object(fields).description.utf8)
    }

    static func decode(_ bytes: [UInt8]) -> AcceptedBroadcast? {
        guard let json = try? JSONParser.parse(bytes), let requestID = json["requestId"]?.stringValue,
              let receivedAt = json["receivedAt"]?.integerValue,
              let environment = json["environment"]?.stringValue.flatMap({ APNsEnvironment(rawValue: $0) }),
              let bundleID = json["bundleId"]?.stringValue, let channel = json["channel"].flatMap(channel),
              let priority = json["priority"]?.integerValue,
              let payload = json["payload"]?.stringValue else { return nil }
        let bytes = Array(payload.utf8)
        return AcceptedBroadcast(
            requestID: APNsID(requestID), receivedAt: receivedAt, environment: environment, bundleID: bundleID,
            channel: channel,
            priority: Int(priority), expiration: json["expiration"]?.integerValue, payload: try? JSONParser.parse(bytes),
            payloadBytes: PayloadBytes(bytes), connectionID: UInt64(json["connectionId"]?.integerValue ?? 0)
        )
    }

    /// A channel's fields, as a broadcast and a published channel change (`PublishedChangeJSON`) hold them.
    static func channelFields(_ channel: BroadcastChannel) -> [(String, JSONValue)] {
        [
            ("id", .string(channel.id)), ("bundleId", .string(channel.bundleID)), ("environment", .string(channel.environment.rawValue)),
            ("storagePolicy", .number(Double(channel.storagePolicy.rawValue))), ("createdAt", .number(Double(channel.createdAt))),
        ]
    }

    static func channel(_ json: JSONValue) -> BroadcastChannel? {
        guard let id = json["id"]?.stringValue, let bundle = json["bundleId"]?.stringValue,
              let environment = json["environment"]?.stringValue.flatMap({ APNsEnvironment(rawValue: $0) }),
              let storage = json["storagePolicy"]?.integerValue.flatMap({ BroadcastChannel.StoragePolicy(rawValue: Int($0)) }),
              let createdAt = json["createdAt"]?.integerValue else { return nil }
        return BroadcastChannel(id: id, bundleID: bundle, environment: environment, storagePolicy: storage, createdAt: createdAt)
    }
}
