import PushlabCore

extension APNsAnswer {
    /// The answer as APNs gave it: the status, the `apns-*` headers it carried and the body as
    /// sent; then, read from the body, the `reason` and the 410's `timestamp`.
    var controlJSON: JSONValue {
        var headers = JSONFields()
        headers.add("apns-id", apnsID)
        headers.add("apns-unique-id", apnsUniqueID)
        headers.add("apns-request-id", requestID)
        headers.add("apns-channel-id", channelID)
        var fields = JSONFields()
        fields.add("status", status)
        fields.add("headers", headers.json)
        fields.add("body", body.isEmpty ? nil : body)
        fields.add("reason", reason)
        fields.add("timestamp", timestamp)
        return fields.json
    }
}
