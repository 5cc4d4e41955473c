import PushlabCore

extension RequestLog.Entry {
    /// One APNs request as `/v1/pushes` lists it (with the store's `sequence`) and as
    /// `/v1/events` streams it (without: the live log numbers within one run, the store across
    /// runs; `apnsId` names it in both).
    func controlJSON(includingSequence: Bool = true) -> JSONValue {
        var fields = JSONFields()
        if includingSequence { fields.add("sequence", sequence) }
        fields.addTime("time", time)
        fields.add("connectionId", Int64(truncatingIfNeeded: connectionID))
        fields.add("environment", environment.rawValue)
        fields.add("deviceToken", deviceToken)
        fields.add("topic", topic)
        fields.add("pushType", pushType)
        fields.add("channelId", channelID)
        fields.add("status", status)
        fields.add("reason", reason?.rawValue)
        fields.add("apnsId", apnsID)
        return fields.json
    }
}
