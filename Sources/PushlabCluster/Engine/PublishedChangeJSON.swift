import PushlabCore
import PushlabSimulator

/// What one node made that every node's world must know: tokens its phones made or retired
/// themselves, channels its channel API created or deleted.
public enum PublishedChange: Sendable, Equatable {
    case token(DeviceSimulator.TokenChange)
    case channel(ChannelChange)
}

/// Published changes as one world change's body: a JSON array any node reads back into its own
/// world.
enum PublishedChangeJSON {
    static func encode(_ changes: [PublishedChange]) -> [UInt8] {
        .init(JSONValue.array(changes.map(json)).description.utf8)
    }

    static func decode(_ bytes: [UInt8]) -> [PublishedChange]? {
        guard case .array(let items) = try? JSONParser.parse(bytes) else { return nil }
        let changes = items.compactMap(change)
        return changes.count == items.count ? changes : nil
    }

    private static func json(_ change: PublishedChange) -> JSONValue {
        switch change {
        case .token(let token): json(token)
        case .channel(.created(let channel)): channelJSON("createChannel", channel)
        case .channel(.deleted(let channel)): channelJSON("deleteChannel", channel)
        }
    }

    private static func channelJSON(_ op: String, _ channel: BroadcastChannel) -> JSONValue {
        .object([("op", .string(op))] + BroadcastJSON.channelFields(channel))
    }

    private static func change(_ json: JSONValue) -> PublishedChange? {
        switch json["op"]?.stringValue {
        case "createChannel", "deleteChannel":
            guard let channel = BroadcastJSON.channel(json) else { return nil }
            return .channel(json["op"]?.stringValue == "createChannel" ? .created(channel) : .deleted(channel))
        default:
            return token(json).map(PublishedChange.token)
        }
    }

    private static func json(_ change: DeviceSimulator.TokenChange) -> JSONValue {
        switch change {
        case .register(let record):
            var fields: [(String, JSONValue)] = [
                ("op", .string("register")), ("token", .string(record.token)), ("bundleId", .string(record.bundleID)),
                ("environment", .string(record.environment.rawValue)), ("kind", .string(record.kind.rawValue)),
            ]
            switch record.state {
            case .active: break
            case .unregistered(let since): fields.append(("unregisteredAt", .number(Double(since))))
            case .expired(let since): fields.append(("expiredAt", .number(Double(since))))
            }
            if let device = record.deviceID { fields.append(("deviceId", .string(device))) }
            return .object(fields)
        case .unregister(let token, let at):
            return .object([("op", .string("unregister")), ("token", .string(token)), ("at", .number(Double(at)))])
        }
    }

    private static func token(_ json: JSONValue) -> DeviceSimulator.TokenChange? {
        guard let token = json["token"]?.stringValue else { return nil }
        switch json["op"]?.stringValue {
        case "register":
            guard let bundle = json["bundleId"]?.stringValue, let environment = json["environment"]?.stringValue.flatMap({ APNsEnvironment(rawValue: $0) }),
                  let kind = json["kind"]?.stringValue.flatMap({ DeviceTokenRecord.Kind(rawValue: $0) }) else { return nil }
            var state = DeviceTokenRecord.State.active
            if let since = json["unregisteredAt"]?.integerValue { state = .unregistered(since: since) }
            if let since = json["expiredAt"]?.integerValue { state = .expired(since: since) }
            return .register(DeviceTokenRecord(token: token, bundleID: bundle, environment: environment, kind: kind, state: state, deviceID: json["deviceId"]?.stringValue))
        case "unregister":
            guard let at = json["at"]?.integerValue else { return nil }
            return .unregister(token: token, at: at)
        default:
            return nil
        }
    }
}
