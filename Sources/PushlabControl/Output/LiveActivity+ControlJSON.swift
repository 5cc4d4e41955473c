import PushlabCore
import PushlabSimulator

extension LiveActivitySupport {
    /// A `LiveActivitySpec`'s fields, then the activities and their budgets' use.
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("enabled", enabled)
        fields.add("frequentUpdates", frequentUpdates)
        fields.add("frequentUpdatesEnabled", frequentUpdatesEnabled)
        fields.add("pushToStartToken", pushToStartToken)
        fields.add("attributesTypes", strings: attributesTypes)
        fields.add("activities", JSONValue.array(activities.map(\.controlJSON)))
        fields.add("storedBroadcasts", JSONValue.array(storedBroadcasts.map { stored in
            var broadcast = JSONFields()
            broadcast.add("channelId", stored.channelID)
            broadcast.add("requestId", stored.push.apnsID)
            broadcast.addTime("expiresAt", stored.push.expiresAt)
            return broadcast.json
        }))
        return fields.json
    }
}

extension LiveActivity {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("id", id)
        fields.add("attributesType", attributesType)
        fields.add("attributes", attributes)
        fields.add("contentState", contentState)
        fields.add("state", state.rawValue)
        fields.add("origin", origin.rawValue)
        fields.add("pushType", pushToken != nil ? "token" : channelID != nil ? "channel" : nil)
        fields.add("pushToken", pushToken)
        fields.add("channelId", channelID)
        fields.add("relevanceScore", relevanceScore)
        fields.addTime("startedAt", startedAt)
        fields.addTime("staleDate", staleDate)
        fields.addTime("contentTimestamp", contentTimestamp)
        fields.addTime("endedAt", endedAt)
        fields.addTime("dismissAt", dismissAt)
        return fields.json
    }
}

extension BroadcastChannel {
    var controlJSON: JSONValue {
        var fields = JSONFields()
        fields.add("id", id)
        fields.add("bundleId", bundleID)
        fields.add("environment", environment.rawValue)
        fields.add("messageStoragePolicy", storagePolicy.rawValue)
        fields.addTime("createdAt", createdAt)
        return fields.json
    }
}
