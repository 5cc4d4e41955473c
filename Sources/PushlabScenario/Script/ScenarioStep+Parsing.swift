import PushlabCore
import PushlabSimulator

extension ScenarioStep {
    /// The step kinds, each a key of a step's mapping; a step has exactly one.
    static let actionKeys = [
        "send", "changeDevice", "changeApp", "interact", "reinstall", "uninstall", "scheduleLocal",
        "advanceClock", "setClock", "addFault", "clearFaults", "startActivity", "updateActivity", "endActivity", "liveActivities",
        "standIn", "report", "jpush", "getui",
    ]

    /// Reads `steps[index]`.
    static func parse(_ value: JSONValue, place: String) throws(ScenarioScriptError) -> ScenarioStep {
        var fields = try StepFields(value, place: place)
        let name = try fields.string("name")
        let present = fields.keys.filter(actionKeys.contains)
        guard present.count == 1, let kind = present.first else {
            let found = present.isEmpty ? "none" : present.joined(separator: " and ")
            throw ScenarioScriptError("\(place) must do exactly one of \(actionKeys.joined(separator: ", ")); it has \(found)")
        }
        let actionPlace = "\(place).\(kind)"
        let actionValue = fields.value(kind) ?? .null
        let (action, device) = try parseAction(kind, actionValue, place: actionPlace)
        let expectation = try fields.nested("expect").map(StepExpectation.parse) ?? StepExpectation()
        try fields.checkAllRead()
        if expectation.expectsAnswer, !action.isSend {
            throw ScenarioScriptError("\(place).expect: status, reason and timestamp are APNs's answer, and only a send step has one")
        }
        if expectation.response != nil, !action.isServiceCall {
            throw ScenarioScriptError("\(place).expect: response is a service's answer, and only a jpush or getui step has one")
        }
        let summary: String
        switch action {
        case .send(let push): summary = "send \(push.pushType ?? "alert") to \(push.targetDescription)"
        case .control(let call): summary = call.summary
        case .report(let expectation): summary = "check the provider report" + (expectation.provider.map { " of \($0)" } ?? "")
        case .service(let call): summary = "\(call.method) \(call.path) through \(call.service == "jpush" ? "JPush" : "GeTui")"
        }
        return ScenarioStep(title: name ?? summary, action: action, device: device, expectation: expectation)
    }

    private static func parseAction(_ kind: String, _ value: JSONValue, place: String) throws(ScenarioScriptError) -> (Action, String?) {
        switch kind {
        case "send":
            var fields = try StepFields(value, place: place)
            let push = try PushStep.parse(&fields)
            try fields.checkAllRead()
            if case .device(let device, _, _) = push.target { return (.send(push), device) }
            return (.send(push), nil)
        case "advanceClock":
            let seconds = try duration(value, place: place)
            return (.control(ControlCall(method: .post, path: "/v1/clock", body: .object([("advance", .number(seconds))]), summary: "advance the clock \(value.stringValue ?? "\(seconds)s")")), nil)
        case "setClock":
            guard let text = value.stringValue, (try? Scenario.time(text, place: place)) != nil else {
                throw ScenarioScriptError("\(place) must be an ISO 8601 time like 2026-01-01T00:00:00Z, not \(value)")
            }
            return (.control(ControlCall(method: .post, path: "/v1/clock", body: .object([("set", .string(text))]), summary: "set the clock to \(text)")), nil)
        case "addFault":
            guard value.isObject else { throw ScenarioScriptError("\(place) must be a fault rule (docs/CONTROL-API.md, Faults)") }
            return (.control(ControlCall(method: .post, path: "/v1/faults", body: value, summary: "add a fault rule")), nil)
        case "standIn":
            guard case .array(let rules) = value else { throw ScenarioScriptError("\(place) must be the stand-in backend's new list of rules") }
            for (index, rule) in rules.enumerated() { _ = try StandInRule.parse(rule, place: "\(place)[\(index)]") }
            return (.control(ControlCall(method: .put, path: "/v1/stand-in/rules", body: .object([("rules", value)]), summary: "change the stand-in backend's rules")), nil)
        case "report":
            return (.report(try ReportExpectation.parse(value, place: place)), nil)
        case "jpush", "getui":
            var fields = try StepFields(value, place: place)
            guard let app = try fields.string("app"), !app.isEmpty else {
                throw ScenarioScriptError("\(place).app is required: the \(kind == "jpush" ? "appKey" : "appId") of one of the scenario's services.\(kind) apps")
            }
            let method = (try fields.string("method") ?? "POST").uppercased()
            guard ["GET", "POST", "PUT", "DELETE"].contains(method) else { throw ScenarioScriptError("\(place).method must be GET, POST, PUT or DELETE, not \(method)") }
            let path = try fields.string("path") ?? (kind == "jpush" ? "/v3/push" : "/push/single/cid")
            let device = try fields.string("device")
            let call = ServiceCall(service: kind, app: app, method: method, path: path, body: fields.value("body"))
            try fields.checkAllRead()
            return (.service(call), device)
        case "clearFaults":
            guard value == .bool(true) else { throw ScenarioScriptError("\(place) must be true") }
            return (.control(ControlCall(method: .delete, path: "/v1/faults", summary: "clear the fault rules")), nil)
        default:
            return try deviceCall(kind, value, place: place)
        }
    }

    /// The steps that act on a device (and maybe one app): `device` and `bundleId` pick it, the
    /// other fields are the control API's body.
    private static func deviceCall(_ kind: String, _ value: JSONValue, place: String) throws(ScenarioScriptError) -> (Action, String?) {
        var fields = try StepFields(value, place: place)
        guard let device = try fields.string("device"), !device.isEmpty else {
            throw ScenarioScriptError("\(place).device is required: the id of a simulated device")
        }
        let bundleID = try fields.string("bundleId")
        let app = "/v1/devices/{device}/apps/{bundleId}"
        let call: ControlCall
        switch kind {
        case "changeDevice":
            if bundleID != nil { throw ScenarioScriptError("\(place).bundleId does not go with changeDevice (use changeApp)") }
            call = ControlCall(method: .patch, path: "/v1/devices/{device}", body: fields.remainder(), summary: "change device \(device)")
        case "changeApp":
            call = ControlCall(method: .patch, path: app, body: fields.remainder(), bundleID: bundleID, summary: "change the app on \(device)")
        case "interact":
            var body = fields.remainder()
            if case .object(var members) = body {
                members.insert(("bundleId", .string("{bundleId}")), at: 0)
                body = .object(members)
            }
            let type = body["type"]?.stringValue ?? "?"
            call = ControlCall(method: .post, path: "/v1/devices/{device}/interactions", body: body, bundleID: bundleID, summary: "\(type) on \(device)")
        case "reinstall":
            call = ControlCall(method: .post, path: app + "/reinstall", bundleID: bundleID, summary: "reinstall the app on \(device)")
        case "uninstall":
            call = ControlCall(method: .delete, path: app, bundleID: bundleID, summary: "uninstall the app from \(device)")
        case "startActivity":
            call = ControlCall(method: .post, path: app + "/activities", body: fields.remainder(), bundleID: bundleID, summary: "the app starts a Live Activity on \(device)")
        case "updateActivity", "endActivity":
            let index = try fields.integer("activity")
            if let index, index < 0 { throw ScenarioScriptError("\(place).activity must be 0 or more (the index in the app's activities)") }
            let activity = "/activities/{activity" + (index.map { ":\($0)" } ?? "") + "}"
            call = kind == "updateActivity"
                ? ControlCall(method: .patch, path: app + activity, body: fields.remainder(), bundleID: bundleID, summary: "the app updates its Live Activity on \(device)")
                : ControlCall(method: .post, path: app + activity + "/end", body: fields.remainder(), bundleID: bundleID, summary: "the app ends its Live Activity on \(device)")
        case "liveActivities":
            call = ControlCall(method: .patch, path: app + "/live-activities", body: fields.remainder(), bundleID: bundleID, summary: "switch Live Activities on \(device)")
        default:  // scheduleLocal
            call = ControlCall(method: .post, path: app + "/local-notifications", body: fields.remainder(), bundleID: bundleID, summary: "schedule a local notification on \(device)")
        }
        try fields.checkAllRead()
        return (.control(call), device)
    }

    /// Seconds, as a number or as text with a unit: `90`, `90s`, `20m`, `1h`, `2d`.
    static func duration(_ value: JSONValue, place: String) throws(ScenarioScriptError) -> Double {
        if let seconds = value.numberValue, seconds >= 0 { return seconds }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let text = value.stringValue, let unit = text.last, let factor = units[unit], let number = Double(text.dropLast()), number >= 0 {
            return number * factor
        }
        throw ScenarioScriptError("\(place) must be a duration: seconds, or a number with s, m, h or d (90, 20m, 1h), not \(value)")
    }
}

extension ScenarioStep.Action {
    var isSend: Bool {
        if case .send = self { return true }
        return false
    }

    var isServiceCall: Bool {
        if case .service = self { return true }
        return false
    }
}
