/// Create, read, delete and list an app's broadcast channels (A10).
extension APNsProviderConnection {
    /// `POST /1/apps/<bundle>/channels` with `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`:
    /// 201 with the new channel's id in `apns-channel-id`.
    func createChannel(_ attempt: inout ChannelAPIAttempt, bundleID: String) throws(Rejection) {
        let length = attempt.request.bodyLength
        if length == 0 { throw Rejection(.payloadEmpty) }
        if length > policy.broadcastPayloadLimit { throw Rejection(.payloadTooLarge) }
        let storagePolicy = try Self.storagePolicy(inConfiguration: attempt.request.body)
        let channel: BroadcastChannel
        do {
            channel = try world.channels.create(
                bundleID: bundleID, environment: attempt.push.environment, storagePolicy: storagePolicy,
                at: attempt.push.receivedAt, limit: policy.channelLimitPerApp
            )
        } catch {
            throw Rejection(.cannotCreateChannelConfig)
        }
        attempt.channelID = channel.id
        attempt.channelChange = .created(channel)
        attempt.success = .success(status: 201, requestID: attempt.requestID, channelID: channel.id)
    }

    /// `GET /1/apps/<bundle>/channels` with `apns-channel-id`: 200 with the channel's configuration.
    func readChannel(_ attempt: inout ChannelAPIAttempt, bundleID: String) throws(Rejection) {
        let channel = try namedChannel(attempt, bundleID: bundleID)
        var writer = JSONWriter()
        writer.beginObject()
        writer.field(Self.storagePolicyKey, Int64(channel.storagePolicy.rawValue))
        writer.field(Self.pushTypeKey, Self.liveActivity)
        writer.endObject()
        attempt.success = .success(status: 200, requestID: attempt.requestID, content: writer.bytes)
    }

    /// `DELETE /1/apps/<bundle>/channels` with `apns-channel-id`: 204.
    func deleteChannel(_ attempt: inout ChannelAPIAttempt, bundleID: String) throws(Rejection) {
        let channel = try namedChannel(attempt, bundleID: bundleID)
        world.channels.delete(channel.id, environment: channel.environment)
        attempt.channelChange = .deleted(channel)
        attempt.success = .success(status: 204, requestID: attempt.requestID)
    }

    /// `GET /1/apps/<bundle>/all-channels`: 200 with `{"channels": [ids]}`, this environment's only.
    func listChannels(_ attempt: inout ChannelAPIAttempt, bundleID: String) {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("channels")
        writer.value(.array(world.channels.list(bundleID: bundleID, environment: attempt.push.environment).map { .string($0.id) }))
        writer.endObject()
        attempt.success = .success(status: 200, requestID: attempt.requestID, content: writer.bytes)
    }

    static let storagePolicyKey = "message-storage-policy"
    static let pushTypeKey = "push-type"
    static let liveActivity = "LiveActivity"

    /// A create's body: JSON (else `BadRequestPayload`) with exactly the two documented keys and
    /// values (else `BadRequestParams`, A11). The push type in any case, as the header [INF].
    static func storagePolicy(inConfiguration body: [UInt8]) throws(Rejection) -> BroadcastChannel.StoragePolicy {
        guard let configuration = try? JSONParser.parse(body), configuration.isObject else { throw Rejection(.badRequestPayload) }
        if configuration.objectKeys.contains(where: { $0 != storagePolicyKey && $0 != pushTypeKey }) { throw Rejection(.badRequestParams) }
        guard configuration[pushTypeKey]?.stringValue?.lowercased() == APNsPushType.liveactivity.rawValue,
              case .number(let code)? = configuration[storagePolicyKey],
              let storagePolicy = Int(exactly: code).flatMap(BroadcastChannel.StoragePolicy.init(rawValue:)) else {
            throw Rejection(.badRequestParams)
        }
        return storagePolicy
    }
}
