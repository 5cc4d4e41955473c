import PushlabCore

extension GeTuiPush {
    /// What GeTui sends APNs for one phone that is not connected: `push_channel.ios.aps` as
    /// given, its badge from `auto_badge` resolved against the one GeTui keeps, `payload` as a
    /// top-level key [DOC], and GeTui's own `_ge_` and `_gmid_` (`taskId:msgId`) [INF: delivered
    /// payloads in GeTui users' logs; `_gmid_`'s form in GeTui's React Native module]. nil
    /// without `push_channel.ios`: then an iOS phone that is not connected gets nothing from APNs.
    public func apnsRequest(
        for deviceToken: String, topic: String, environment: APNsEnvironment, taskID: String, messageID: String, storedBadge: Int
    ) -> (plan: APNsRequestPlan, badge: Int?)? {
        guard let ios else { return nil }
        var aps = ios.aps
        let badge = ios.autoBadge.map { $0.resolved(against: storedBadge) }
        if let badge {
            aps.removeAll { $0.key == "badge" }
            aps.append(("badge", .number(Double(badge))))
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("aps", JSONValue.object(aps))
        writer.field("payload", ios.payload)
        writer.field("_ge_", Int64(1))
        writer.field("_gmid_", "\(taskID):\(messageID)")
        writer.endObject()

        let apsValue = JSONValue.object(aps)
        let visible = apsValue["alert"] != nil || apsValue["sound"] != nil || apsValue["badge"] != nil
        let silent = !visible && apsValue["content-available"]?.integerValue == 1
        let pushType = ios.type == "voip" ? "voip" : silent ? "background" : "alert"
        let plan = APNsRequestPlan(
            deviceToken: deviceToken, environment: environment, topic: ios.type == "voip" ? topic + ".voip" : topic,
            pushType: pushType, priority: silent ? 5 : 10, collapseID: ios.collapseID,
            expiration: nil, payload: writer.text
        )
        return (plan, badge)
    }
}
