import PushlabCore
import PushlabSimulator

extension PushStep {
    /// Reads a `send:` mapping (docs/SCENARIOS.md, Steps).
    static func parse(_ fields: inout StepFields) throws(ScenarioScriptError) -> PushStep {
        let place = fields.place
        let device = try fields.string("device")
        let token = try fields.string("token")
        let channel = try fields.string("channel")
        let bundleID = try fields.string("bundleId")
        let previousToken = try fields.bool("previousToken") ?? false
        let target: Target
        switch (device, token, channel) {
        case (let device?, nil, nil): target = .device(device, bundleID: bundleID, previousToken: previousToken)
        case (nil, let token?, nil):
            if bundleID != nil || previousToken { throw ScenarioScriptError("\(place): bundleId and previousToken go with device, not token") }
            target = .token(token)
        case (nil, nil, let channel?):
            if previousToken { throw ScenarioScriptError("\(place): previousToken goes with device, not channel") }
            target = .channel(channel, bundleID: bundleID)
        default: throw ScenarioScriptError("\(place) needs exactly one of device (a simulated device's id), token (hex) and channel (a broadcast channel's id)")
        }
        var environment: APNsEnvironment?
        if let text = try fields.string("environment") {
            guard let parsed = text == "sandbox" ? .development : APNsEnvironment(rawValue: text) else {
                throw ScenarioScriptError("\(place).environment must be development (sandbox) or production, not \(text)")
            }
            environment = parsed
        }
        let payload: [UInt8]
        switch (fields.value("payload"), try fields.string("payloadText")) {
        case (let json?, nil): payload = Array(json.description.utf8)
        case (nil, let text?): payload = Array(text.utf8)
        default: throw ScenarioScriptError("\(place) needs exactly one of payload (YAML written as JSON) and payloadText (the body as it is)")
        }
        let priority = try fields.integer("priority").map(Int.init)
        let liveActivityToken = try parseLiveActivityToken(&fields, target: target)
        var step = PushStep(
            target: target, environment: environment, topic: try fields.string("topic"), pushType: try fields.string("pushType"),
            priority: priority, expiration: try fields.integer("expiration"), expiresIn: try fields.integer("expiresIn"),
            collapseID: try fields.string("collapseId"), apnsID: try fields.string("apnsId"), payload: payload,
            auth: try auth(fields.value("auth"), place: "\(place).auth"), connection: try fields.string("connection") ?? "main"
        )
        step.liveActivityToken = liveActivityToken
        if step.pushType == nil { step.pushType = liveActivityToken.map(Self.defaultPushType) ?? (channel != nil ? "liveactivity" : nil) }
        if channel != nil, step.collapseID != nil || step.topic != nil {
            throw ScenarioScriptError("\(place): a broadcast has no collapseId or topic (bundleId names the app)")
        }
        return step
    }

    /// `to: pushToStart` or `to: activity` (with `activity: N`, else the newest).
    private static func parseLiveActivityToken(_ fields: inout StepFields, target: Target) throws(ScenarioScriptError) -> LiveActivityToken? {
        let place = fields.place
        let to = try fields.string("to")
        let index = try fields.integer("activity")
        guard let to else {
            if index != nil { throw ScenarioScriptError("\(place).activity goes with to: activity") }
            return nil
        }
        guard case .device = target else { throw ScenarioScriptError("\(place).to picks a token of a device's app: it needs device, not token") }
        switch to {
        case "pushToStart":
            if index != nil { throw ScenarioScriptError("\(place).activity goes with to: activity, not pushToStart") }
            return .pushToStart
        case "activity":
            if let index, index < 0 { throw ScenarioScriptError("\(place).activity must be 0 or more (the index in the app's activities)") }
            return .activity(index.map(Int.init))
        case "deviceToken":
            return nil
        case let service where serviceTokens.keys.contains(service):
            if index != nil { throw ScenarioScriptError("\(place).activity goes with to: activity, not \(service)") }
            return .service(service)
        default:
            throw ScenarioScriptError("\(place).to must be deviceToken, pushToStart, activity, \(serviceTokens.keys.sorted().joined(separator: ", ")), not \(to)")
        }
    }

    /// The push type each service token takes.
    static let serviceTokens: [String: String] = Dictionary(uniqueKeysWithValues: PushServices.specKeys.map { ($0.key, $0.kind.pushType?.rawValue ?? "") })
        .merging(["mdm": "mdm"]) { first, _ in first }

    static func defaultPushType(_ token: LiveActivityToken) -> String {
        if case .service(let name) = token { return serviceTokens[name] ?? "alert" }
        return "liveactivity"
    }

    private static func auth(_ value: JSONValue?, place: String) throws(ScenarioScriptError) -> Auth {
        guard let value else { return .key(keyID: nil, teamID: nil, issuedAtOffset: nil, newToken: false, keepToken: false) }
        if value.stringValue == "none" { return .none }
        var fields = try StepFields(value, place: place)
        let auth: Auth
        if let token = try fields.string("providerToken") {
            auth = .literal(token)
        } else if let certificate = try fields.string("certificate") {
            auth = .certificate(certificate: certificate, key: try fields.string("certificateKey"))
        } else {
            let offset = try fields.value("issuedAt").map { value throws(ScenarioScriptError) in try signedDuration(value, place: "\(place).issuedAt") }
            let newToken = try fields.bool("newToken") ?? false
            let keepToken = try fields.bool("keepToken") ?? false
            if keepToken, newToken || offset != nil {
                throw ScenarioScriptError("\(place): keepToken reuses the connection's token; it does not go with newToken or issuedAt")
            }
            auth = .key(keyID: try fields.string("keyId"), teamID: try fields.string("teamId"), issuedAtOffset: offset, newToken: newToken, keepToken: keepToken)
        }
        try fields.checkAllRead()
        return auth
    }

    /// `-2h`, `-7200`, `30s`: seconds from the server's clock.
    private static func signedDuration(_ value: JSONValue, place: String) throws(ScenarioScriptError) -> Int64 {
        if let text = value.stringValue, text.hasPrefix("-") {
            return -Int64(try ScenarioStep.duration(.string(String(text.dropFirst())), place: place))
        }
        if let number = value.numberValue { return Int64(number) }
        return Int64(try ScenarioStep.duration(value, place: place))
    }

    private var liveActivityDescription: String {
        switch liveActivityToken {
        case nil: ""
        case .pushToStart: " (push-to-start token)"
        case .activity(let index?): " (activity \(index)'s token)"
        case .activity(nil): " (the newest activity's token)"
        case .service(let name): " (its \(name) token)"
        }
    }

    var targetDescription: String {
        switch target {
        case .device(let device, let bundleID, let previous):
            (bundleID.map { "\($0) on " } ?? "") + device + (previous ? " (its previous token)" : "") + liveActivityDescription
        case .token(let token): "token \(token.prefix(8))…"
        case .channel(let channel, let bundleID): "channel \(channel)" + (bundleID.map { " of \($0)" } ?? "")
        }
    }
}
