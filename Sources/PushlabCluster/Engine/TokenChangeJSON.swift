import PushlabCore
import PushlabSimulator

/// The tokens phones made or retired themselves, as one world change's body: a JSON array any
/// node reads back into its own world.
enum TokenChangeJSON {
    static func encode(_ changes: [DeviceSimulator.TokenChange]) -> [UInt8] {
        .init(JSONValue.array(changes.map(json)).description.utf8)
    }

    static func decode(_ bytes: [UInt8]) -> [DeviceSimulator.TokenChange]? {
        guard case .array(let items) = try? JSONParser.parse(bytes) else { return nil }
        let changes = items.compactMap(change)
        return changes.count == items.count ? changes : nil
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

    private static func change(_ json: JSONValue) -> DeviceSimulator.TokenChange? {
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
