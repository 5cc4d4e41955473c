import PushlabCore

/// An app calling its provider's backend (docs/SIMULATOR.md section 15): the callbacks that
/// make it call, and the request each one becomes.
extension DeviceSession {
    /// After `callback` ran: the request the app makes for it, if its backend has one.
    mutating func noteProviderEvent(_ app: Int, _ callback: AppCallback, _ id: APNsID?, _ arguments: CallbackArguments) {
        guard let backend = device.apps[app].provider, let event = Self.providerEvent(for: callback),
              let template = backend.template(for: event) else { return }
        let install = device.apps[app]
        let notificationID = id?.text
        var fields: [String: JSONValue] = [
            "deviceToken": .string(install.deviceToken), "bundleId": .string(install.bundleID), "deviceId": .string(device.id),
            "environment": .string(install.environment.rawValue), "event": .string(event.rawValue),
        ]
        if let notificationID { fields["notificationId"] = .string(notificationID) }
        if let sdk = install.sdk, let id = sdk.registrationID {
            fields["registrationId"] = .string(id)
            fields["pushService"] = .string(sdk.service.rawValue)
        }
        if let userInfo = arguments.userInfo ?? arguments.launchOptions?[CallbackKey.remoteNotificationLaunchKey] { fields["userInfo"] = userInfo }
        if let action = arguments.actionIdentifier { fields["actionIdentifier"] = .string(action) }
        if let text = arguments.typedText { fields["typedText"] = .string(text) }
        // iOS gives a woken app about 30 seconds; a request still running then is cut off.
        let inBackground = !install.state.isOnScreen
        let background = inBackground && (event == .backgroundFetch || event == .notificationResponse)
        let limit = background ? min(settings.providerBackgroundSeconds, template.timeoutSeconds) : template.timeoutSeconds
        let base = backend.baseURL.hasSuffix("/") ? String(backend.baseURL.dropLast()) : backend.baseURL
        let path = ProviderTemplate.fill(template.path, fields, encodeForPath: true)
        providerRequests.append(ProviderRequest(
            deviceID: device.id, bundleID: install.bundleID, notificationID: notificationID, event: event, method: template.method,
            url: base + (path.hasPrefix("/") ? path : "/" + path),
            headers: template.headers.map { ProviderHeader($0.name, ProviderTemplate.fill($0.value, fields, encodeForPath: false)) },
            body: template.body.map { Array(ProviderTemplate.fill($0, fields).description.utf8) },
            timeLimitMilliseconds: Int64((limit * 1000).rounded()), limitedByBackgroundTime: background && settings.providerBackgroundSeconds <= template.timeoutSeconds
        ))
    }

    static func providerEvent(for callback: AppCallback) -> ProviderEvent? {
        switch callback {
        case .didRegisterForRemoteNotifications: .registered
        case .didFinishLaunching: .launch
        case .jpushRegistrationID, .getuiDidRegisterClient: .sdkRegistered
        case .didReceiveRemoteNotificationFetch: .backgroundFetch
        case .didReceiveResponse, .handleRemoteAction, .handleRemoteActionWithResponseInfo, .handleLocalAction, .handleLocalActionWithResponseInfo:
            .notificationResponse
        default: nil
        }
    }
}

/// `{field}` substitution over an event's fields (`{userInfo.order.id}` reads into objects).
enum ProviderTemplate {
    static func fill(_ value: JSONValue, _ fields: [String: JSONValue]) -> JSONValue {
        switch value {
        case .string(let text):
            if text.hasPrefix("{"), text.hasSuffix("}"), !text.dropFirst().dropLast().contains("{") {
                return lookup(String(text.dropFirst().dropLast()), fields) ?? .null
            }
            return .string(fill(text, fields, encodeForPath: false))
        case .array(let items): return .array(items.map { fill($0, fields) })
        case .object(let members): return .object(members.map { ($0.key, fill($0.value, fields)) })
        default: return value
        }
    }

    static func fill(_ text: String, _ fields: [String: JSONValue], encodeForPath: Bool) -> String {
        var output = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            output += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            let value = lookup(name, fields).map { $0.stringValue ?? $0.description } ?? ""
            output += encodeForPath ? PercentEncoding.encode(value) : value
            rest = rest[rest.index(after: close)...]
        }
        return output + rest
    }

    static func lookup(_ name: String, _ fields: [String: JSONValue]) -> JSONValue? {
        let parts = name.split(separator: ".").map(String.init)
        guard let first = parts.first, var value = fields[first] else { return nil }
        for part in parts.dropFirst() {
            guard let next = value[part] else { return nil }
            value = next
        }
        return value
    }
}
