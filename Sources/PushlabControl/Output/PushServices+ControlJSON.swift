import PushlabCore
import PushlabSimulator

extension AppInstall {
    /// Each push service an `AppSpec` may give, with its token and what it counted.
    var servicesJSON: [(key: String, value: JSONValue)] {
        guard let services else { return [] }
        var members: [(key: String, value: JSONValue)] = []
        if let voip = services.voip {
            var fields = JSONFields()
            fields.add("token", voip.token)
            fields.add("reportsCall", voip.reportsCall.rawValue)
            fields.add("callerKey", voip.callerKey)
            fields.add("failedReports", voip.failedReports)
            fields.add("deliveryStopped", voip.deliveryStopped)
            members.append(("voip", fields.json))
        }
        if let location = services.location {
            var fields = JSONFields()
            fields.add("token", location.token)
            fields.add("entitlement", location.entitlement)
            fields.add("authorization", location.authorization.rawValue)
            members.append(("locationPush", fields.json))
        }
        if let talk = services.pushToTalk {
            var fields = JSONFields()
            fields.add("token", talk.token)
            fields.add("inChannel", talk.inChannel)
            fields.add("result", talk.result.rawValue)
            members.append(("pushToTalk", fields.json))
        }
        if let provider = services.fileProvider { members.append(("fileProvider", .object([("token", .string(provider.token))]))) }
        if let widgets = services.widgets {
            members.append(("widgets", .object([("token", .string(widgets.token)), ("reloads", .number(Double(widgets.reloads.count)))])))
        }
        if let controls = services.controls { members.append(("controls", .object([("token", .string(controls.token))]))) }
        if let watch = services.complication {
            var fields = JSONFields()
            fields.add("token", watch.token)
            fields.add("onActiveWatchFace", watch.onActiveWatchFace)
            fields.add("deliveries", watch.deliveries.count)
            members.append(("complication", fields.json))
        }
        return members
    }

    /// `serviceExtension`: a flag, or what the extension does.
    var serviceExtensionJSON: JSONValue {
        guard serviceExtension, let behavior = serviceExtensionBehavior else { return .bool(serviceExtension) }
        var fields = JSONFields()
        fields.add("title", behavior.title)
        fields.add("subtitle", behavior.subtitle)
        fields.add("body", behavior.body)
        fields.add("attachment", behavior.attachment)
        fields.add("seconds", behavior.seconds)
        fields.add("outcome", behavior.outcome.rawValue)
        fields.add("deliversBestAttempt", behavior.deliversBestAttempt)
        fields.add("communicationSender", behavior.communicationSender)
        return fields.json
    }
}

extension MDMEnrollment {
    var controlJSON: JSONValue {
        .object([("topic", .string(topic)), ("token", .string(token)), ("pushMagic", .string(pushMagic))])
    }
}
