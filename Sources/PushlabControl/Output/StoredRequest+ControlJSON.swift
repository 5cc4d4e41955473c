import PushlabCore
import PushlabStore

extension StoredRequest {
    /// One APNs request as `/v1/pushes` lists it.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("sequence", sequence)
        fields.addTime("time", time)
        fields.add("connectionId", Int64(truncatingIfNeeded: connectionID))
        fields.add("environment", environment.rawValue)
        fields.add("deviceToken", deviceToken)
        fields.add("topic", topic)
        fields.add("pushType", pushType)
        fields.add("status", status)
        fields.add("reason", reason?.rawValue)
        fields.add("apnsId", apnsID)
        return fields.json
    }
}

extension RequestLog.Entry {
    /// A request as `/v1/events` streams it: `/v1/pushes`'s fields without `sequence` (the
    /// store numbers across runs, the log within one); `apnsId` names it in both.
    var eventJSON: JSONValue {
        var fields = JSONFields()
        fields.addTime("time", time)
        fields.add("connectionId", Int64(truncatingIfNeeded: connectionID))
        fields.add("environment", environment.rawValue)
        fields.add("deviceToken", deviceToken)
        fields.add("topic", topic)
        fields.add("pushType", pushType)
        fields.add("status", status)
        fields.add("reason", reason?.rawValue)
        fields.add("apnsId", apnsID)
        return fields.json
    }
}
